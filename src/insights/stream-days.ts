import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../load/sql.js';

export type DayState = 'complete' | 'partial' | 'missing';

/**
 * Whether a stream's loaded windows cover a day, and whether the covering window was fetched
 * after the day ended (a window fetched during the day holds part of it only).
 */
export async function streamDayState(
  conn: DuckDBConnection,
  projectId: string,
  stream: string,
  day: string,
): Promise<DayState> {
  const rows = await queryRows(
    conn,
    `SELECT bool_or(fetched_at >= ($3::DATE + 1)::TIMESTAMPTZ) AS complete
     FROM sync_windows
     WHERE project_id = $1 AND stream = $2 AND status = 'loaded'
       AND window_start <= $3::DATE AND window_end > $3::DATE`,
    [projectId, stream, day],
  );
  const complete = rows[0]?.['complete'];
  if (complete === null || complete === undefined) return 'missing';
  return complete === true ? 'complete' : 'partial';
}

/** How many of the `days` days before `day` a stream's loaded windows cover. */
export async function coveredDaysBefore(
  conn: DuckDBConnection,
  projectId: string,
  stream: string,
  day: string,
  days: number,
): Promise<number> {
  const rows = await queryRows(
    conn,
    `SELECT count(*)::INTEGER AS n
     FROM range($3::DATE - $4::INTEGER, $3::DATE, INTERVAL 1 DAY) AS r(d)
     WHERE EXISTS (SELECT 1 FROM sync_windows AS w
       WHERE w.project_id = $1 AND w.stream = $2 AND w.status = 'loaded'
         AND w.window_start <= r.d::DATE AND w.window_end > r.d::DATE)`,
    [projectId, stream, day, days],
  );
  return Number(rows[0]?.['n'] ?? 0);
}

/** A stream the project never loaded (an opt-in one, or not synced): its rule does not apply. */
export async function streamEverLoaded(
  conn: DuckDBConnection,
  projectId: string,
  stream: string,
): Promise<boolean> {
  const rows = await queryRows(
    conn,
    `SELECT count(*)::INTEGER AS n FROM sync_windows WHERE project_id = $1 AND stream = $2 AND status = 'loaded'`,
    [projectId, stream],
  );
  return Number(rows[0]?.['n'] ?? 0) > 0;
}
