import { loadWindowBatch, type BatchLoadOptions, type BatchStep } from './duckdb/site-pages.js';
import type { Database } from './duckdb/database.js';
import { isoTime } from './session.js';
import { sessionOf, type SessionLike } from './session-of.js';
import { dayNumber } from './duckdb/sql.js';
import { safeLine } from '../util/safe-text.js';
import type { WindowLoad } from './window-load.js';

// What loadWindow takes: callers keep importing it from here.
export type { WindowLoad } from './window-load.js';

export type LoadStep = BatchStep;
export type LoadOptions = BatchLoadOptions;

/**
 * Loads one fetched window in ONE transaction: the site row replaced, the day's page rows
 * replaced as a set, the window marked loaded. A failure (or a crash) at any instant leaves the
 * day all-old. It is the batch loader with a batch of one, so both share one code path.
 */
export async function loadWindow(db: Database, w: WindowLoad, opts: LoadOptions = {}): Promise<void> {
  await loadWindowBatch(db, [w], opts);
}

/** Loads windows one after another, each in its own transaction; stops at the first failure (earlier ones stay loaded). */
export async function loadWindows(
  db: Database,
  ws: readonly WindowLoad[],
  opts: LoadOptions = {},
): Promise<void> {
  for (const w of ws) await loadWindow(db, w, opts);
}

export interface WindowFailure {
  projectId: string;
  /** Default visitors. */
  stream?: string;
  day: string;
  /** window_end; default the day after `day`. */
  dateTo?: string;
  runId: string;
  error: string;
  attempts: number;
  fetchedAt: Date;
}

/**
 * Records a window that failed after retries, unless the day already holds loaded data: a failed
 * re-fetch (lookback) never downgrades a good day. Returns whether a row was written.
 */
export async function markWindowFailed(target: SessionLike, f: WindowFailure): Promise<boolean> {
  dayNumber(f.day);
  const changed = await sessionOf(target).run(
    `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id, error)
     VALUES ($1, $7, $2::DATE, coalesce($8::DATE, $2::DATE + 1), 'failed', 0, 0, NULL, $3::INTEGER, $4::TIMESTAMPTZ, $5, $6)
     ON CONFLICT (project_id, stream, window_start) DO UPDATE SET
       attempts = excluded.attempts, fetched_at = excluded.fetched_at, run_id = excluded.run_id, error = excluded.error
     WHERE sync_windows.status <> 'loaded'`,
    [
      f.projectId,
      f.day,
      f.attempts,
      isoTime(f.fetchedAt),
      f.runId,
      // Made safe like any output: the message may quote a server's answer.
      safeLine(f.error),
      f.stream ?? 'visitors',
      f.dateTo ?? null,
    ],
  );
  return changed > 0;
}
