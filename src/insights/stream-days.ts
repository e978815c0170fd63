import type { SqlSession } from '../load/session.js';

export type DayState = 'complete' | 'partial' | 'missing';

/**
 * Whether a stream's loaded windows cover a day, and whether the covering window was fetched
 * after the day ended (a window fetched during the day holds part of it only). The day ends at
 * midnight UTC whatever the session's time zone.
 */
export async function streamDayState(
  session: SqlSession,
  projectId: string,
  stream: string,
  day: string,
): Promise<DayState> {
  const rows = await session.rows(
    `SELECT bool_or(fetched_at >= (($3::DATE + 1)::TIMESTAMP AT TIME ZONE 'UTC')) AS complete
     FROM sync_windows
     WHERE project_id = $1::VARCHAR AND stream = $2::VARCHAR AND status = 'loaded'
       AND window_start <= $3::DATE AND window_end > $3::DATE`,
    [projectId, stream, day],
  );
  const complete = rows[0]?.['complete'];
  if (complete === null || complete === undefined) return 'missing';
  return complete === true ? 'complete' : 'partial';
}

/** How many of the `days` days before `day` a stream's loaded windows cover. */
export async function coveredDaysBefore(
  session: SqlSession,
  projectId: string,
  stream: string,
  day: string,
  days: number,
): Promise<number> {
  const rows = await session.rows(
    `SELECT count(*)::INTEGER AS n
     FROM generate_series(1, $4::INTEGER) AS r(i)
     WHERE EXISTS (SELECT 1 FROM sync_windows AS w
       WHERE w.project_id = $1::VARCHAR AND w.stream = $2::VARCHAR AND w.status = 'loaded'
         AND w.window_start <= $3::DATE - r.i::INTEGER AND w.window_end > $3::DATE - r.i::INTEGER)`,
    [projectId, stream, day, days],
  );
  return Number(rows[0]?.['n'] ?? 0);
}

/** A stream the project never loaded (an opt-in one, or not synced): its rule does not apply. */
export async function streamEverLoaded(
  session: SqlSession,
  projectId: string,
  stream: string,
): Promise<boolean> {
  const rows = await session.rows(
    `SELECT count(*)::INTEGER AS n FROM sync_windows
     WHERE project_id = $1::VARCHAR AND stream = $2::VARCHAR AND status = 'loaded'`,
    [projectId, stream],
  );
  return Number(rows[0]?.['n'] ?? 0) > 0;
}
