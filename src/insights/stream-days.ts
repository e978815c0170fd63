import type { SqlSession } from '../load/session.js';
import { addDays } from '../util/day.js';

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

/**
 * How many days of [from, to] (both inclusive) a stream holds whole: covered by a loaded window
 * fetched after the day ended, and (`untruncated`) not cut short by a page cap. A comparison of
 * two periods needs every day of both: a week of 2 loaded days against one of 7 is a "+250%"
 * that never happened (issue 27, item 13).
 */
export async function fullDays(
  session: SqlSession,
  projectId: string,
  stream: string,
  from: string,
  to: string,
  opts: { readonly untruncated?: boolean } = {},
): Promise<number> {
  const rows = await session.rows(
    `SELECT count(*)::INTEGER AS n
     FROM generate_series(0, $4::DATE - $3::DATE) AS r(i)
     WHERE EXISTS (SELECT 1 FROM sync_windows AS w
       WHERE w.project_id = $1::VARCHAR AND w.stream = $2::VARCHAR AND w.status = 'loaded'
         AND w.window_start <= $3::DATE + r.i::INTEGER AND w.window_end > $3::DATE + r.i::INTEGER
         AND w.fetched_at >= (($3::DATE + r.i::INTEGER + 1)::TIMESTAMP AT TIME ZONE 'UTC')
         ${opts.untruncated === true ? 'AND NOT w.truncated' : ''})`,
    [projectId, stream, from, to],
  );
  return Number(rows[0]?.['n'] ?? 0);
}

/** Whether [from, from + days) and the `days` before it are both held whole by the stream. */
export async function bothWhole(
  session: SqlSession,
  projectId: string,
  stream: string,
  from: string,
  days: number,
  opts: { readonly untruncated?: boolean } = {},
): Promise<{ now: number; before: number; whole: boolean }> {
  const end = (start: string): string => addDays(start, days - 1);
  const before = addDays(from, -days);
  const now = await fullDays(session, projectId, stream, from, end(from), opts);
  const prev = await fullDays(session, projectId, stream, before, end(before), opts);
  return { now, before: prev, whole: now === days && prev === days };
}
