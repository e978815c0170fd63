import { isoTime, type Row, type SqlParam, type SqlSession } from './session.js';
import { dayNumber } from '../util/day.js';
import { safeLine } from '../util/safe-text.js';

/*
 * Run records, the request ledger and the sync state, in the SQL both destinations share: every
 * function takes a SqlSession (or, for callers written before sessions, an open DuckDB database).
 */

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
  /**
   * Projects the API said it does not know (a 404 naming the project): exit 2 promises nothing
   * written, so the run is no record of theirs. They leave the run's project list, and a run of
   * only such projects leaves no row at all (its requests stay in the request ledger: they were spent).
   */
  unknownProjects?: readonly string[];
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
  /**
   * Whose budget the request spent (src/api/budget-scope.ts): requests are counted per scope. Null
   * or absent for rows written before scopes and for callers that know none: those count against
   * every scope, which errs on the side of waiting.
   */
  budgetScope?: string | null;
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

function days(rows: Row[], column = 'day'): string[] {
  return rows.map((r) => String(r[column]));
}

/** A time both destinations hand out as an ISO string, as epoch ms. */
function epochMs(v: unknown): number {
  return Date.parse(String(v));
}

export async function startRun(session: SqlSession, r: RunStart): Promise<void> {
  await session.run(
    `INSERT INTO sync_runs (run_id, project_ids, started_at, status, date_from, date_to, windows_planned, deferred_days, streams)
     VALUES ($1, $2::VARCHAR[], $3::TIMESTAMPTZ, 'running', $4::DATE, $5::DATE, $6::INTEGER, $7::VARCHAR[], $8::VARCHAR[])`,
    [
      r.runId,
      [...r.projectIds],
      isoTime(r.startedAt),
      r.dateFrom,
      r.dateTo,
      r.windowsPlanned,
      [...r.plannedDays],
      [...(r.streams ?? ['visitors'])],
    ],
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

export async function updateRun(session: SqlSession, u: RunProgress): Promise<void> {
  const sets: string[] = [];
  const params: SqlParam[] = [u.runId];
  for (const [key, column] of Object.entries(COUNTER_COLUMNS)) {
    const value = u[key as keyof typeof COUNTER_COLUMNS];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}::BIGINT`);
  }
  if (sets.length === 0) return;
  await session.run(`UPDATE sync_runs SET ${sets.join(', ')} WHERE run_id = $1`, params);
}

export async function finishRun(session: SqlSession, f: RunFinish): Promise<void> {
  if ((f.unknownProjects ?? []).length > 0 && !(await dropUnknownProjects(session, f))) return;
  await session.run(
    `UPDATE sync_runs SET status = $2, finished_at = $3::TIMESTAMPTZ, windows_loaded = $4::INTEGER,
       windows_failed = $5::INTEGER, windows_deferred = $6::INTEGER, requests = $7::INTEGER,
       retries = $8::INTEGER, rows_loaded = $9::BIGINT, warnings = $10::INTEGER, error = $11,
       deferred_days = $12::VARCHAR[]
     WHERE run_id = $1`,
    [
      f.runId,
      f.status,
      isoTime(f.finishedAt),
      f.windowsLoaded,
      f.windowsFailed,
      f.windowsDeferred,
      f.requests,
      f.retries,
      f.rowsLoaded,
      f.warnings,
      f.error === null ? null : safeLine(f.error),
      [...f.deferredDays],
    ],
  );
}

/** Takes the unknown projects out of the run's row; false when none is left and the row went. */
async function dropUnknownProjects(session: SqlSession, f: RunFinish): Promise<boolean> {
  const unknown = new Set(f.unknownProjects);
  const rows = await session.rows('SELECT project_ids FROM sync_runs WHERE run_id = $1', [f.runId]);
  const ids = ((rows[0]?.['project_ids'] as string[] | null | undefined) ?? []).filter(
    (p) => !unknown.has(p),
  );
  if (ids.length === 0) {
    await session.run('DELETE FROM sync_runs WHERE run_id = $1', [f.runId]);
    return false;
  }
  await session.run('UPDATE sync_runs SET project_ids = $2::VARCHAR[] WHERE run_id = $1', [f.runId, ids]);
  return true;
}

/**
 * Runs left 'running' by a process that died. Call it while holding the sync lock: on DuckDB the
 * file's lock (then no run is really running: mark them all); on PostgreSQL the locks of the run's
 * projects, and pass them as `projectIds`: only the runs that share a project with them are
 * surely dead (a live run would hold its lock); runs of other projects may be going right now.
 */
export async function markStaleRuns(
  session: SqlSession,
  opts: { projectIds?: readonly string[] } = {},
): Promise<number> {
  const params: SqlParam[] = [STALE_RUN_ERROR];
  let ours = '';
  if (opts.projectIds !== undefined) {
    params.push([...opts.projectIds]);
    ours = `AND EXISTS (SELECT 1 FROM (SELECT unnest(project_ids) AS id) p
                      WHERE p.id IN (SELECT unnest($2::VARCHAR[])))`;
  }
  // The counters of a killed run stopped where its last progress update left them: what it
  // really loaded is in sync_windows, under its run id.
  return session.run(
    `UPDATE sync_runs SET status = 'failed', finished_at = now(), error = $1,
       windows_loaded = greatest(windows_loaded, (SELECT count(*) FROM sync_windows w
         WHERE w.run_id = sync_runs.run_id AND w.status = 'loaded')),
       rows_loaded = greatest(rows_loaded, (SELECT coalesce(sum(w.rows), 0) FROM sync_windows w
         WHERE w.run_id = sync_runs.run_id AND w.status = 'loaded'))
     WHERE status = 'running' ${ours}`,
    params,
  );
}

/** Sets a run's request count to what the ledger holds for it (after a killed run's journal is recovered). */
export async function recountRunRequests(session: SqlSession, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await session.run(
    `UPDATE sync_runs SET requests = greatest(requests, (SELECT count(*) FROM api_requests a
       WHERE a.run_id = sync_runs.run_id))
     WHERE run_id IN (SELECT unnest($1::VARCHAR[]))`,
    [[...runIds]],
  );
}

/**
 * Records requests in the ledger in bulk: one statement, each column one array parameter unnested
 * side by side (both dialects zip several unnests of one SELECT list), committed on its own
 * unless the session is in a transaction.
 */
export async function appendLedger(session: SqlSession, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  await session.run(
    `INSERT INTO api_requests (requested_at, seq, endpoint, project_id, status, duration_ms, run_id, budget_scope)
     SELECT unnest($1::TIMESTAMPTZ[]), unnest($2::BIGINT[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]),
            unnest($5::INTEGER[]), unnest($6::INTEGER[]), unnest($7::VARCHAR[]), unnest($8::VARCHAR[])`,
    [
      rows.map((r) => isoTime(r.at)),
      rows.map((r) => r.seq),
      rows.map((r) => r.endpoint),
      rows.map((r) => r.projectId),
      rows.map((r) => r.status),
      rows.map((r) => Math.round(r.durationMs)),
      rows.map((r) => r.runId),
      rows.map((r) => r.budgetScope ?? null),
    ],
  );
}

export interface LedgerReadOptions {
  /** Only the calls that share one limit (the analytics endpoints); default every endpoint. */
  readonly endpoints?: readonly string[];
  /**
   * Only the requests of this budget scope, and those recorded without one (older rows: they may
   * have been anybody's, so they count for everybody). Default: every request, whatever its scope.
   */
  readonly budgetScope?: string;
}

/** The WHERE conditions (after the first) and parameters (from $2) the ledger options ask for. */
export function ledgerFilter(opts: LedgerReadOptions, params: SqlParam[]): string {
  let sql = '';
  if (opts.endpoints) {
    params.push([...opts.endpoints]);
    sql += ` AND endpoint IN (SELECT unnest($${params.length}::VARCHAR[]))`;
  }
  if (opts.budgetScope !== undefined) {
    params.push(opts.budgetScope);
    sql += ` AND (budget_scope = $${params.length} OR budget_scope IS NULL)`;
  }
  return sql;
}

/**
 * Epoch ms of the requests sent at or after `sinceEpochMs`, ascending: what the request budget
 * needs to know about earlier runs. Each counts from its answer (sent + duration): the server
 * counts a request somewhere in between, and the answer is never too early.
 */
export async function readLedgerSince(
  session: SqlSession,
  sinceEpochMs: number,
  opts: LedgerReadOptions = {},
): Promise<number[]> {
  const params: SqlParam[] = [isoTime(sinceEpochMs)];
  const filter = ledgerFilter(opts, params);
  const done = `requested_at + duration_ms * INTERVAL '1 millisecond'`;
  const rows = await session.rows(
    `SELECT ${done} AS done_at FROM api_requests WHERE ${done} >= $1::TIMESTAMPTZ${filter} ORDER BY done_at, seq`,
    params,
  );
  return rows.map((r) => epochMs(r['done_at']));
}

export async function readSyncState(
  session: SqlSession,
  projectId: string,
  stream = 'visitors',
): Promise<SyncState> {
  const [loaded, partial, failed, truncated] = [
    await session.rows(
      `SELECT window_start AS day, window_end AS day_end, fetched_at,
              rows = 0 AND coalesce(api_totals_total, 0) > 0 AS rowless FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'loaded' ORDER BY window_start`,
      [projectId, stream],
    ),
    // Partial: loaded before the window was over (--include-today), whatever the stream's tables.
    await session.rows(
      `SELECT window_start AS day FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'loaded' AND fetched_at < CAST(window_end AS TIMESTAMPTZ)
       ORDER BY window_start`,
      [projectId, stream],
    ),
    await session.rows(
      `SELECT window_start AS day FROM sync_windows
       WHERE project_id = $1 AND stream = $2 AND status = 'failed' ORDER BY window_start`,
      [projectId, stream],
    ),
    await session.rows(
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
    fetchedAt: new Map(loaded.map((r) => [String(r['day']), epochMs(r['fetched_at'])])),
    windowEnds: new Map(loaded.map((r) => [String(r['day']), String(r['day_end'])])),
    rowlessDays: loaded.filter((r) => r['rowless'] === true).map((r) => String(r['day'])),
  };
}

/**
 * A DATE column as 'YYYY-MM-DD' text on either dialect, whatever PostgreSQL's DateStyle: deferred
 * days are compared as text, so that an entry whose tail is no real day matches nothing instead
 * of failing the cast (PostgreSQL has no TRY_CAST).
 */
function dayText(session: SqlSession, column: string): string {
  return session.dialect === 'postgres' ? `to_char(${column}, 'YYYY-MM-DD')` : `CAST(${column} AS VARCHAR)`;
}

function isDay(text: string): boolean {
  try {
    dayNumber(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Days that earlier runs left unloaded for this project and that no window has loaded since.
 * A run records its whole plan as `deferred_days` when it starts and the days it really
 * deferred when it ends, so the plan of a run that was killed (marked 'failed' by the next
 * one) or died before finishing still tells which days it never loaded.
 */
export async function readDeferredDays(
  session: SqlSession,
  projectId: string,
  stream = 'visitors',
): Promise<string[]> {
  const rows = await session.rows(
    `WITH deferred AS (
       SELECT r.started_at, right(d.entry, 10) AS day
       FROM sync_runs r, unnest(r.deferred_days) AS d(entry)
       WHERE r.status IN ('incomplete', 'failed')
         AND (d.entry = $1::VARCHAR || ':' || $2::VARCHAR || ':' || right(d.entry, 10)
              OR ($2::VARCHAR = 'visitors' AND d.entry = $1::VARCHAR || ':' || right(d.entry, 10)))
     )
     SELECT DISTINCT d.day FROM deferred d
     WHERE NOT EXISTS (
       SELECT 1 FROM sync_windows w
       WHERE w.project_id = $1 AND w.stream = $2 AND ${dayText(session, 'w.window_start')} = d.day
         AND w.status = 'loaded' AND w.fetched_at >= d.started_at
     )
     ORDER BY d.day`,
    [projectId, stream],
  );
  return days(rows).filter(isDay);
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

/**
 * The most recent runs, newest first, with their counters recounted from what they left behind:
 * a killed run's row stopped at its last progress update, but its loaded windows are in
 * sync_windows and its requests in the ledger under its run id (greatest: a window loaded again
 * by a later run no longer carries this one's id).
 */
export async function readRecentRuns(session: SqlSession, limit: number): Promise<RunRecord[]> {
  const rows = await session.rows(
    `SELECT r.run_id, r.project_ids, r.started_at, r.finished_at, r.status, r.date_from, r.date_to,
       r.windows_planned, r.windows_failed, r.windows_deferred, r.retries, r.warnings, r.error, r.deferred_days,
       greatest(r.windows_loaded, coalesce(w.loaded, 0)) AS windows_loaded,
       greatest(r.rows_loaded, coalesce(w.loaded_rows, 0)) AS rows_loaded,
       greatest(r.requests, coalesce(l.n, 0)) AS requests
     FROM (SELECT * FROM sync_runs ORDER BY started_at DESC, run_id DESC LIMIT $1::INTEGER) r
     LEFT JOIN (SELECT run_id, count(*) AS loaded, sum(rows) AS loaded_rows FROM sync_windows
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
  session: SqlSession,
  projectId: string,
  stream: string,
): Promise<Map<string, number>> {
  const rows = await session.rows(
    `SELECT window_start AS day, pages FROM sync_windows WHERE project_id = $1 AND stream = $2 AND status = 'loaded'`,
    [projectId, stream],
  );
  return new Map(rows.map((r) => [String(r['day']), Number(r['pages'])]));
}

/** Average API pages per loaded window over the project's 30 most recent loaded days (for the ETA). */
export async function averagePagesPerWindow(
  session: SqlSession,
  projectId: string,
  stream = 'visitors',
): Promise<number | undefined> {
  const rows = await session.rows(
    `SELECT avg(pages) AS pages FROM (
       SELECT pages FROM sync_windows WHERE project_id = $1 AND stream = $2 AND status = 'loaded'
       ORDER BY window_start DESC LIMIT 30
     ) recent`,
    [projectId, stream],
  );
  const v = rows[0]?.['pages'];
  return typeof v === 'number' ? v : undefined;
}
