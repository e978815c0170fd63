import {
  BIGINT,
  BOOLEAN,
  DATE,
  INTEGER,
  TIMESTAMPTZ,
  VARCHAR,
  listValue,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import { DataShiftError, EtlError, InternalError } from '../errors.js';
import type { Database } from './database.js';
import { dayNumber, inTransaction, toDateValue, toTimestampValue } from './sql.js';
import type { WindowLoad } from './window-loader.js';
import { addDays } from '../util/day.js';
import { appendColumns, withAppender } from './append.js';

const SITE_COLUMNS = [VARCHAR, DATE, BIGINT, BIGINT, BIGINT, BOOLEAN, TIMESTAMPTZ, VARCHAR];
/** sync_windows in its column order: project_id, stream, window_start, window_end, status, pages, rows, truncated, api_totals_total, attempts, fetched_at, run_id, error. */
const WINDOW_COLUMNS = [
  VARCHAR,
  VARCHAR,
  DATE,
  DATE,
  VARCHAR,
  INTEGER,
  INTEGER,
  BOOLEAN,
  BIGINT,
  INTEGER,
  TIMESTAMPTZ,
  VARCHAR,
  VARCHAR,
];

// The batch's (project, day) keys arrive as two bound lists zipped by unnest. The day range
// in front lets DuckDB skip row groups by their min/max before it joins on the keys.
function deleteKeysSql(table: string, day = 'day', where = ''): string {
  return `DELETE FROM ${table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day) AS k
WHERE ${table}.${day} BETWEEN $3::DATE AND $4::DATE AND ${table}.project_id = k.project_id AND ${table}.${day} = k.day${where}`;
}
const DELETE_SQL = {
  site: deleteKeysSql('site_daily'),
  pages: deleteKeysSql('page_daily'),
  windows: deleteKeysSql('sync_windows', 'window_start', " AND sync_windows.stream = 'visitors'"),
} as const;

export type BatchStep = 'delete' | 'site' | 'pages' | 'window';

export interface BatchLoadOptions {
  /**
   * Fault-injection seam for tests: called inside the transaction after each step. Throwing (or
   * killing the process) here shows what a failure at that instant leaves behind.
   */
  onStep?: (step: BatchStep) => void | Promise<void>;
}

/**
 * A window that passed `prepareWindow`: its page rows checked, deduplicated and already turned
 * into the JSON text the INSERT parses. The row objects are not kept: a window may wait for the
 * writer's next commit, and a flat string per window is a fraction of the memory (and of the
 * garbage V8 must trace) that thousands of row objects are.
 */
export interface PreparedWindow {
  readonly w: Omit<WindowLoad, 'pages'>;
  /** Distinct page rows. */
  readonly rows: number;
  /**
   * The rows as JSON arrays of {path, human, ai, total}, at most BODY_CHUNK_ROWS each: DuckDB
   * parses one string in one allocation, and a 55,000-row day as one string no longer fit the
   * writer's 32 MB memory limit (every night, at hundreds of requests per attempt).
   */
  readonly chunks: readonly { readonly rows: number; readonly body: string }[];
}

/** Page rows per JSON text handed to DuckDB: a few MB of text, far below the writer's memory limit. */
export const BODY_CHUNK_ROWS = 20_000;

function chunked(rows: readonly WindowLoad['pages'][number][]): PreparedWindow['chunks'] {
  const out: { rows: number; body: string }[] = [];
  for (let i = 0; i < rows.length; i += BODY_CHUNK_ROWS) {
    const part = rows.slice(i, i + BODY_CHUNK_ROWS);
    out.push({ rows: part.length, body: JSON.stringify(part, PAGE_FIELDS) });
  }
  return out;
}

function count(value: number, what: string, w: WindowLoad): bigint {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InternalError(
      `window ${w.projectId} ${w.day}: ${what} is ${String(value)}, not a non-negative integer`,
      { projectId: w.projectId, day: w.day },
    );
  }
  return BigInt(value);
}

/**
 * Checks one window before it joins a batch, so that a bad window is refused on its own instead
 * of failing everyone's transaction: a real day, non-negative integer counts, and no path twice
 * with different counts (identical repeats, a page boundary shown twice, collapse).
 */
export function prepareWindow(w: WindowLoad): PreparedWindow {
  dayNumber(w.day);
  count(w.site.human, 'site human', w);
  count(w.site.ai, 'site ai', w);
  count(w.site.total, 'site total', w);
  count(w.apiTotalsTotal, 'API totals.total', w);
  const seen = new Map<string, WindowLoad['pages'][number]>();
  const out: WindowLoad['pages'][number][] = [];
  // Paths that held a lone surrogate: their U+FFFD form may equal another path of the day.
  const rewrittenPaths = new Set<string>();
  for (const [i, row] of w.pages.entries()) {
    let p = row;
    if (typeof p.path !== 'string') {
      throw new InternalError(`window ${w.projectId} ${w.day}: page row ${i} has no path`, {
        projectId: w.projectId,
        day: w.day,
      });
    }
    if (!p.path.isWellFormed()) {
      // A lone UTF-16 surrogate (JSON.parse accepts "\ud800") has no UTF-8 form: it is stored
      // as U+FFFD, as DuckDB's own string conversion would, instead of failing the batch.
      p = { ...p, path: p.path.toWellFormed() };
      if (seen.has(p.path) || rewrittenPaths.has(p.path)) throw surrogateCollision(w, p.path);
      rewrittenPaths.add(p.path);
    } else if (rewrittenPaths.has(p.path)) {
      throw surrogateCollision(w, p.path);
    }
    const before = seen.get(p.path);
    if (before === undefined) {
      count(p.human, `page row ${i} human`, w);
      count(p.ai, `page row ${i} ai`, w);
      count(p.total, `page row ${i} total`, w);
      seen.set(p.path, p);
      out.push(p);
    } else if (before.human !== p.human || before.ai !== p.ai || before.total !== p.total) {
      throw new DataShiftError(
        `window ${w.projectId} ${w.day}: path ${JSON.stringify(p.path)} appears twice with different counts`,
        { projectId: w.projectId, day: w.day, path: p.path },
      );
    }
  }
  const { pages: _pages, ...meta } = w;
  // Only the four columns: rows may carry fields the loader does not store.
  return { w: meta, rows: out.length, chunks: chunked(out) };
}

/**
 * Two distinct API paths that only a lone surrogate told apart would become one row: merging
 * their counts (or keeping one) would be wrong data, so the day fails and keeps its old rows.
 */
function surrogateCollision(w: Pick<WindowLoad, 'projectId' | 'day'>, path: string): EtlError {
  return new InternalError(
    `window ${w.projectId} ${w.day}: path ${JSON.stringify(path)} stands for two API paths that differ only in an unpaired UTF-16 surrogate, which UTF-8 (and DuckDB) cannot store; the day is not loaded`,
    { projectId: w.projectId, day: w.day, path },
  );
}

/**
 * Page rows travel to DuckDB as JSON text, one string per window, parsed by DuckDB's own JSON
 * reader inside the INSERT. Handing each value to the Appender costs a native call per value on
 * the main thread (about 2-3 µs a row: the loader ran at ~200,000 rows/s, 5x slower than
 * `read_json`); JSON.stringify is native V8 code and the parse runs on DuckDB's threads, which
 * measured ~800,000 rows/s (BENCHMARKS.md, benchmark 3). The values are the ones the schemas
 * and `prepareWindow` already checked, so the round trip changes nothing; the row count is
 * still compared with what was sent.
 */
const PAGE_ROWS_SQL = `INSERT INTO page_daily (project_id, day, path, human, ai, total)
SELECT project_id, day, r.path, r.human, r.ai, r.total FROM (
  SELECT project_id, day,
    unnest(from_json(body, '[{"path":"VARCHAR","human":"BIGINT","ai":"BIGINT","total":"BIGINT"}]')) AS r
  FROM (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day, unnest($3::VARCHAR[]) AS body)
)`;

/** Rows per INSERT: bounds the text bound at once, so a big batch is a few statements, not one huge string list. */
const PAGE_ROWS_PER_STATEMENT = 20_000;

async function insertPages(conn: DuckDBConnection, batch: readonly PreparedWindow[]): Promise<void> {
  const chunks = batch.flatMap(({ w, chunks }) => chunks.map((c) => ({ w, ...c })));
  for (let i = 0; i < chunks.length;) {
    const projects: string[] = [];
    const days: DuckDBValue[] = [];
    const bodies: string[] = [];
    let rows = 0;
    for (; i < chunks.length && (rows === 0 || rows < PAGE_ROWS_PER_STATEMENT); i++) {
      const { w, rows: n, body } = chunks[i] as (typeof chunks)[number];
      projects.push(w.projectId);
      days.push(toDateValue(w.day));
      bodies.push(body);
      rows += n;
    }
    if (rows === 0) continue;
    const result = await conn.run(PAGE_ROWS_SQL, [listValue(projects), listValue(days), listValue(bodies)]);
    if (result.rowsChanged !== rows) {
      throw new InternalError(
        `page rows did not round-trip: sent ${rows}, DuckDB inserted ${result.rowsChanged}`,
        { sent: rows, inserted: result.rowsChanged },
      );
    }
  }
}
const PAGE_FIELDS = ['path', 'human', 'ai', 'total'];

/** The last window of a (project, day) wins, as if the windows had been loaded one by one. */
function lastPerDay(windows: readonly PreparedWindow[]): PreparedWindow[] {
  const byKey = new Map<string, PreparedWindow>();
  for (const p of windows) {
    const key = `${p.w.projectId}\u0000${p.w.day}`;
    byKey.delete(key);
    byKey.set(key, p);
  }
  return [...byKey.values()];
}

async function loadBatchInTransaction(
  db: Database,
  batch: readonly PreparedWindow[],
  opts: BatchLoadOptions,
): Promise<void> {
  const conn = db.connection;
  const days = batch.map((b) => b.w.day).sort();
  const keys: DuckDBValue[] = [
    listValue(batch.map((b) => b.w.projectId)),
    listValue(batch.map((b) => toDateValue(b.w.day))),
    days[0] as string,
    days.at(-1) as string,
  ];
  const loadedAt = toTimestampValue(Date.now());
  await inTransaction(conn, async () => {
    for (const sql of [DELETE_SQL.site, DELETE_SQL.pages, DELETE_SQL.windows]) await conn.run(sql, keys);
    await opts.onStep?.('delete');
    await withAppender(conn, 'site_daily', (a) =>
      appendColumns(a, SITE_COLUMNS, batch.length, (s, e) => {
        const part = batch.slice(s, e).map((b) => b.w);
        return [
          part.map((w) => w.projectId),
          part.map((w) => toDateValue(w.day)),
          part.map((w) => BigInt(w.site.human)),
          part.map((w) => BigInt(w.site.ai)),
          part.map((w) => BigInt(w.site.total)),
          part.map((w) => w.partial),
          part.map(() => loadedAt),
          part.map((w) => w.runId),
        ];
      }),
    );
    await opts.onStep?.('site');
    await insertPages(conn, batch);
    await opts.onStep?.('pages');
    await withAppender(conn, 'sync_windows', (a) =>
      appendColumns(a, WINDOW_COLUMNS, batch.length, (s, e) => {
        const part = batch.slice(s, e);
        return [
          part.map((b) => b.w.projectId),
          part.map(() => 'visitors'),
          part.map((b) => toDateValue(b.w.day)),
          part.map((b) => toDateValue(addDays(b.w.day, 1))),
          part.map(() => 'loaded'),
          part.map((b) => b.w.pagesFetched),
          part.map((b) => b.rows),
          part.map(() => false),
          part.map((b) => BigInt(b.w.apiTotalsTotal)),
          part.map((b) => b.w.attempts),
          part.map((b) => toTimestampValue(b.w.fetchedAt)),
          part.map((b) => b.w.runId),
          part.map(() => null),
        ];
      }),
    );
    await opts.onStep?.('window');
  });
}

/**
 * Group commit: loads many fetched windows in ONE transaction with set-based statements (one
 * DELETE per table for every (project, day) of the batch, then an Appender for the site and
 * window rows and JSON-fed INSERTs for the page rows). Same
 * result as `loadWindow` on each window in order, at a fraction of the cost per window: the
 * per-transaction overhead (about 15 ms) is paid once per batch instead of once per day. The
 * batch is atomic: a failure or a crash leaves every day of it all-old.
 */
export async function loadWindowBatch(
  db: Database,
  windows: readonly WindowLoad[],
  opts: BatchLoadOptions = {},
): Promise<void> {
  await loadPreparedBatch(db, windows.map(prepareWindow), opts);
}

/** `loadWindowBatch` for windows that already went through `prepareWindow` (the writer checks each on its own first). */
export async function loadPreparedBatch(
  db: Database,
  windows: readonly PreparedWindow[],
  opts: BatchLoadOptions = {},
): Promise<void> {
  if (windows.length === 0) return;
  const batch = lastPerDay(windows);
  try {
    await loadBatchInTransaction(db, batch, opts);
  } catch (e) {
    if (e instanceof EtlError) throw e;
    const first = (windows[0] as PreparedWindow).w;
    if (windows.length === 1) {
      throw new InternalError(
        `loading ${first.projectId} ${first.day} into ${db.path} failed (the day keeps its previous data): ${(e as Error).message}`,
        { projectId: first.projectId, day: first.day, path: db.path },
        { cause: e },
      );
    }
    throw new InternalError(
      `loading a batch of ${windows.length} window(s) (first ${first.projectId} ${first.day}) into ${db.path} failed (every day of it keeps its previous data): ${(e as Error).message}`,
      { windows: windows.length, path: db.path },
      { cause: e },
    );
  }
}
