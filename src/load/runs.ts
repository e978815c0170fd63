import {
  BIGINT,
  INTEGER,
  LIST,
  TIMESTAMPTZ,
  VARCHAR,
  listValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { appendColumns, withAppender } from './append.js';
import type { Database } from './database.js';
import { exclusive, plainValue, queryRows, toTimestampValue, type Row, type SqlParams } from './sql.js';
import { safeLine } from '../util/safe-text.js';

export type RunStatus = 'running' | 'succeeded' | 'incomplete' | 'failed';

export interface RunStart {
  runId: string;
  projectIds: readonly string[];
  /** The streams the run syncs (default: visitors, the only one before streams). */
  streams?: readonly string[];
  /** Planned range, 'YYYY-MM-DD', dateTo exclusive like the API; null when nothing was planned. */
  dateFrom: string | null;
  dateTo: string | null;
  windowsPlanned: number;
  /**
   * 'projectId:YYYY-MM-DD' of every planned window: stored as the run's deferred days until it
   * finishes, so that a kill leaves the unloaded ones to the next run.
   */
  plannedDays: readonly string[];
  startedAt: Date;
}

export interface RunCounters {
  windowsLoaded: number;
  windowsFailed: number;
  windowsDeferred: number;
  requests: number;
  retries: number;
  rowsLoaded: number;
  warnings: number;
}

/** Progress written while a run is going: only the fields given change. */
export type RunProgress = { runId: string; windowsPlanned?: number } & Partial<RunCounters>;

export interface RunFinish extends RunCounters {
  runId: string;
  status: Exclude<RunStatus, 'running'>;
  error: string | null;
  /**
   * 'projectId:YYYY-MM-DD' of the windows left for the next run: deferred (budget,
   * --max-requests, --max-duration, a signal, a fatal error) or failed.
   */
  deferredDays: readonly string[];
  finishedAt: Date;
}

export interface RunRecord extends RunCounters {
  runId: string;
  projectIds: string[];
  startedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  dateFrom: string | null;
  dateTo: string | null;
  windowsPlanned: number;
  error: string | null;
  deferredDays: string[];
}

export interface LedgerRow {
  /** Epoch ms when the request was sent. */
  at: number;
  /** Tells apart requests sent in the same millisecond. */
  seq: number;
  endpoint: string;
  projectId: string | null;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  durationMs: number;
  runId: string | null;
}

export interface SyncState {
  /** Days with a loaded window (partial ones included), ascending. */
  loadedDays: string[];
  /** Loaded days that were not over when fetched, ascending. */
  partialDays: string[];
  /** Days whose last attempt failed and that hold no loaded data, ascending. */
  failedDays: string[];
  /** Loaded days a page cap cut short. */
  truncatedDays: string[];
  /** When each loaded day was last fetched, epoch ms. */
  fetchedAt: Map<string, number>;
  /** Each loaded window's end (exclusive), by its start: range windows span several days. */
  windowEnds: Map<string, string>;
  /** Loaded windows with no rows though the API counted some (a period fetched without its pages). */
  rowlessDays: string[];
}

export const STALE_RUN_ERROR = 'process ended without finishing (killed?)';

function read(db: Database, sql: string, params?: SqlParams): Promise<Row[]> {
  return exclusive(db.connection, () => queryRows(db.connection, sql, params));
}

async function write(
  db: Database,
  sql: string,
  params: DuckDBValue[],
  types?: DuckDBType[],
): Promise<number> {
  const conn = db.connection;
  return exclusive(conn, async () => (await conn.run(sql, params, types)).rowsChanged);
}

function varcharList(values: readonly string[]): DuckDBValue {
  return listValue([...values]);
}

function days(rows: Row[], column = 'day'): string[] {
  return rows.map((r) => String(r[column]));
}

export async function startRun(db: Database, r: RunStart): Promise<void> {
  await write(
    db,
    `INSERT INTO sync_runs (run_id, project_ids, started_at, status, date_from, date_to, windows_planned, deferred_days, streams)
     VALUES ($1, $2::VARCHAR[], $3, 'running', $4::DATE, $5::DATE, $6, $7::VARCHAR[], $8::VARCHAR[])`,
    [
      r.runId,
      varcharList(r.projectIds),
      toTimestampValue(r.startedAt),
      r.dateFrom,
      r.dateTo,
      r.windowsPlanned,
      varcharList(r.plannedDays),
      varcharList(r.streams ?? ['visitors']),
    ],
    [VARCHAR, LIST(VARCHAR), TIMESTAMPTZ, VARCHAR, VARCHAR, INTEGER, LIST(VARCHAR), LIST(VARCHAR)],
  );
}

const COUNTER_COLUMNS: Record<keyof RunCounters | 'windowsPlanned', string> = {
  windowsPlanned: 'windows_planned',
  windowsLoaded: 'windows_loaded',
  windowsFailed: 'windows_failed',
  windowsDeferred: 'windows_deferred',
  requests: 'requests',
  retries: 'retries',
  rowsLoaded: 'rows_loaded',
  warnings: 'warnings',
};

export async function updateRun(db: Database, u: RunProgress): Promise<void> {
  const sets: string[] = [];
  const params: DuckDBValue[] = [u.runId];
  for (const [key, column] of Object.entries(COUNTER_COLUMNS)) {
    const value = u[key as keyof typeof COUNTER_COLUMNS];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  if (sets.length === 0) return;
  await write(db, `UPDATE sync_runs SET ${sets.join(', ')} WHERE run_id = $1`, params);
}

export async function finishRun(db: Database, f: RunFinish): Promise<void> {
  await write(
    db,
    `UPDATE sync_runs SET status = $2, finished_at = $3, windows_loaded = $4, windows_failed = $5,
       windows_deferred = $6, requests = $7, retries = $8, rows_loaded = $9, warnings = $10, error = $11,
       deferred_days = $12::VARCHAR[]
     WHERE run_id = $1`,
    [
      f.runId,
      f.status,
      toTimestampValue(f.finishedAt),
      f.windowsLoaded,
      f.windowsFailed,
      f.windowsDeferred,
      f.requests,
      f.retries,
      f.rowsLoaded,
      f.warnings,
      f.error === null ? null : safeLine(f.error),
      varcharList(f.deferredDays),
    ],
    [
      VARCHAR,
      VARCHAR,
      TIMESTAMPTZ,
      INTEGER,
      INTEGER,
      INTEGER,
      INTEGER,
      INTEGER,
      BIGINT,
      INTEGER,
      VARCHAR,
      LIST(VARCHAR),
    ],
  );
}

/** Runs left 'running' by a process that died. Call it while holding the sync lock (then no run is really running). */
export async function markStaleRuns(db: Database): Promise<number> {
  // The counters of a killed run stopped where its last progress update left them: what it
  // really loaded is in sync_windows, under its run id.
  return write(
    db,
    `UPDATE sync_runs SET status = 'failed', finished_at = now(), error = $1,
       windows_loaded = greatest(windows_loaded, (SELECT count(*) FROM sync_windows w
         WHERE w.run_id = sync_runs.run_id AND w.status = 'loaded')),
       rows_loaded = greatest(rows_loaded, (SELECT coalesce(sum(w.rows), 0) FROM sync_windows w
         WHERE w.run_id = sync_runs.run_id AND w.status = 'loaded'))
     WHERE status = 'running'`,
    [STALE_RUN_ERROR],
  );
}

/** Sets a run's request count to what the ledger holds for it (after a killed run's journal is recovered). */
export async function recountRunRequests(db: Database, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await write(
    db,
    `UPDATE sync_runs SET requests = greatest(requests, (SELECT count(*) FROM api_requests a
       WHERE a.run_id = sync_runs.run_id))
     WHERE list_contains($1::VARCHAR[], run_id)`,
    [varcharList(runIds)],
    [LIST(VARCHAR)],
  );
}

const LEDGER_COLUMNS = [TIMESTAMPTZ, BIGINT, VARCHAR, VARCHAR, INTEGER, INTEGER, VARCHAR];

/** Records requests in the ledger in bulk (one appender, committed on its own). */
export async function appendLedger(db: Database, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  const conn = db.connection;
  await exclusive(conn, () =>
    withAppender(conn, 'api_requests', (appender) =>
      appendColumns(appender, LEDGER_COLUMNS, rows.length, (start, end) => {
        const part = rows.slice(start, end);
        return [
          part.map((r) => toTimestampValue(r.at)),
          part.map((r) => BigInt(r.seq)),
          part.map((r) => r.endpoint),
          part.map((r) => r.projectId),
          part.map((r) => r.status),
          part.map((r) => Math.round(r.durationMs)),
          part.map((r) => r.runId),
        ];
      }),
    ),
  );
}

/**
 * Epoch ms of the requests sent at or after `sinceEpochMs`, ascending: what the request budget
 * needs to know about earlier runs. `endpoints` limits it to the calls that share one limit.
 */
export async function readLedgerSince(
  db: Database,
  sinceEpochMs: number,
  opts: { endpoints?: readonly string[] } = {},
): Promise<number[]> {
  const filter = opts.endpoints ? 'AND list_contains($2, endpoint)' : '';
  const params: DuckDBValue[] = [toTimestampValue(sinceEpochMs)];
  const types: DuckDBType[] = [TIMESTAMPTZ];
  if (opts.endpoints) {
    params.push(varcharList(opts.endpoints));
    types.push(LIST(VARCHAR));
  }
  const conn = db.connection;
  const rows = await exclusive(conn, async () =>
    (
      await conn.runAndReadAll(
        `SELECT epoch_ms(requested_at) + duration_ms AS ms FROM api_requests WHERE requested_at + to_milliseconds(duration_ms) >= $1 ${filter} ORDER BY ms, seq`,
        params,
        types,
      )
    ).convertRowObjects(plainValue),
  );
  return rows.map((r) => Number(r['ms']));
}

export async function readSyncState(
  db: Database,
  projectId: string,
  stream = 'visitors',
): Promise<SyncState> {
  const [loaded, partial, failed, truncated] = [
    await read(
      db,
      `SELECT window_start AS day, window_end AS day_end, epoch_ms(fetched_at) AS fetched_ms,
              rows = 0 AND coalesce(api_totals_total, 0) > 0 AS rowless FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'loaded' ORDER BY window_start`,
      [projectId, stream],
    ),
    // Partial: loaded before the window was over (--include-today), whatever the stream's tables.
    await read(
      db,
      `SELECT window_start AS day FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'loaded' AND fetched_at < window_end::TIMESTAMPTZ
       ORDER BY window_start`,
      [projectId, stream],
    ),
    await read(
      db,
      `SELECT window_start AS day FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'failed' ORDER BY window_start`,
      [projectId, stream],
    ),
    await read(
      db,
      `SELECT window_start AS day FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'loaded' AND truncated ORDER BY window_start`,
      [projectId, stream],
    ),
  ];
  return {
    loadedDays: days(loaded),
    partialDays: days(partial),
    failedDays: days(failed),
    truncatedDays: days(truncated),
    fetchedAt: new Map(loaded.map((r) => [String(r['day']), Number(r['fetched_ms'])])),
    windowEnds: new Map(loaded.map((r) => [String(r['day']), String(r['day_end'])])),
    rowlessDays: loaded.filter((r) => r['rowless'] === true).map((r) => String(r['day'])),
  };
}

/**
 * Days that earlier runs left unloaded for this project and that no window has loaded since.
 * A run records its whole plan as `deferred_days` when it starts and the days it really
 * deferred when it ends, so the plan of a run that was killed (marked 'failed' by the next
 * one) or died before finishing still tells which days it never loaded.
 */
export async function readDeferredDays(
  db: Database,
  projectId: string,
  stream = 'visitors',
): Promise<string[]> {
  const rows = await read(
    db,
    `WITH deferred AS (
       SELECT r.started_at, TRY_CAST(right(d.entry, 10) AS DATE) AS day
       FROM sync_runs r, unnest(r.deferred_days) AS d(entry)
       WHERE r.status IN ('incomplete', 'failed')
         AND (d.entry = $1 || ':' || $2 || ':' || right(d.entry, 10)
              OR ($2 = 'visitors' AND d.entry = $1 || ':' || right(d.entry, 10)))
     )
     SELECT DISTINCT d.day FROM deferred d
     WHERE d.day IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM sync_windows w
       WHERE w.project_id = $1 AND w.stream = $2 AND w.window_start = d.day AND w.status = 'loaded'
         AND w.fetched_at >= d.started_at
     )
     ORDER BY d.day`,
    [projectId, stream],
  );
  return days(rows);
}

function toRunRecord(r: Row): RunRecord {
  const n = (k: string): number => Number(r[k] ?? 0);
  const s = (k: string): string | null => {
    const v = r[k];
    return typeof v === 'string' ? v : null;
  };
  return {
    runId: s('run_id') ?? '',
    projectIds: (r['project_ids'] as string[] | null) ?? [],
    startedAt: s('started_at') ?? '',
    finishedAt: s('finished_at'),
    status: s('status') as RunStatus,
    dateFrom: s('date_from'),
    dateTo: s('date_to'),
    windowsPlanned: n('windows_planned'),
    windowsLoaded: n('windows_loaded'),
    windowsFailed: n('windows_failed'),
    windowsDeferred: n('windows_deferred'),
    requests: n('requests'),
    retries: n('retries'),
    rowsLoaded: n('rows_loaded'),
    warnings: n('warnings'),
    error: s('error'),
    deferredDays: (r['deferred_days'] as string[] | null) ?? [],
  };
}

/** The latest runs first. */
/**
 * The most recent runs, newest first, with their counters recounted from what they left behind:
 * a killed run's row stopped at its last progress update, but its loaded windows are in
 * sync_windows and its requests in the ledger under its run id (greatest: a window loaded again
 * by a later run no longer carries this one's id).
 */
export async function readRecentRuns(db: Database, limit: number): Promise<RunRecord[]> {
  const rows = await read(
    db,
    `SELECT r.* REPLACE (
       greatest(r.windows_loaded, coalesce(w.loaded, 0))::INTEGER AS windows_loaded,
       greatest(r.rows_loaded, coalesce(w.rows, 0))::BIGINT AS rows_loaded,
       greatest(r.requests, coalesce(l.n, 0))::INTEGER AS requests)
     FROM (SELECT * FROM sync_runs ORDER BY started_at DESC, run_id DESC LIMIT $1) r
     LEFT JOIN (SELECT run_id, count(*) AS loaded, sum(rows) AS rows FROM sync_windows
                WHERE status = 'loaded' GROUP BY run_id) w ON w.run_id = r.run_id
     LEFT JOIN (SELECT run_id, count(*) AS n FROM api_requests GROUP BY run_id) l ON l.run_id = r.run_id
     ORDER BY r.started_at DESC, r.run_id DESC`,
    [Math.max(0, Math.floor(limit))],
  );
  return rows.map(toRunRecord);
}

/**
 * API pages each loaded window of the stream took when last fetched, by window start: what a
 * re-read of that window costs (a month of feedback costs its own pages, not the stream's average).
 */
export async function pagesByWindow(
  db: Database,
  projectId: string,
  stream: string,
): Promise<Map<string, number>> {
  const rows = await read(
    db,
    `SELECT window_start AS day, pages FROM sync_windows WHERE project_id = $1 AND stream = $2 AND status = 'loaded'`,
    [projectId, stream],
  );
  return new Map(rows.map((r) => [String(r['day']), Number(r['pages'])]));
}

/** Average API pages per loaded window over the project's 30 most recent loaded days (for the ETA). */
export async function averagePagesPerWindow(
  db: Database,
  projectId: string,
  stream = 'visitors',
): Promise<number | undefined> {
  const rows = await read(
    db,
    `SELECT avg(pages) AS pages FROM (
       SELECT pages FROM sync_windows WHERE project_id = $1 AND stream = $2 AND status = 'loaded' ORDER BY window_start DESC LIMIT 30
     )`,
    [projectId, stream],
  );
  const v = rows[0]?.['pages'];
  return typeof v === 'number' ? v : undefined;
}
