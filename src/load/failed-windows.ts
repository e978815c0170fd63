import { safeLine } from '../util/safe-text.js';
import { dayNumber } from '../util/day.js';
import { isoTime, type SqlSession } from './session.js';

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
export async function markWindowFailed(session: SqlSession, f: WindowFailure): Promise<boolean> {
  dayNumber(f.day);
  const changed = await session.run(
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
