import type { SqlSession } from '../load/session.js';
import type { AlertRules } from './alert-rules.js';
import { makeAlert, round, type Alert } from './alert.js';
import { coveredDaysBefore, streamDayState, streamEverLoaded } from './stream-days.js';

/**
 * A stream's day must be complete, and its history long enough, before a rule reads it; a stream
 * never loaded is skipped without a word (it is not synced for this project).
 */
async function ready(
  session: SqlSession,
  projectId: string,
  stream: string,
  day: string,
  history: { days: number; needed: number },
  notes: string[],
  rule: string,
): Promise<boolean> {
  const state = await streamDayState(session, projectId, stream, day);
  if (state === 'missing' && !(await streamEverLoaded(session, projectId, stream))) return false;
  if (state !== 'complete') {
    notes.push(`${rule}: ${day} is ${state} in ${stream}: no ${rule} alert from it`);
    return false;
  }
  const covered = await coveredDaysBefore(session, projectId, stream, day, history.days);
  if (covered < history.needed) {
    notes.push(
      `${rule}: not enough history (${covered} of the ${history.days} days before ${day} loaded in ${stream}, ${history.needed} needed): no ${rule} alert yet`,
    );
    return false;
  }
  return true;
}

/** Terms searched N+ times that day without a click, that were not such terms the week before. */
export async function searchAlerts(
  session: SqlSession,
  projectId: string,
  day: string,
  rules: AlertRules['search'],
  notes: string[],
): Promise<Alert[]> {
  const history = { days: 7, needed: rules.minHistoryDays };
  if (!(await ready(session, projectId, 'searches', day, history, notes, 'search'))) return [];
  const rows = await session.rows(
    `WITH before AS (
       SELECT DISTINCT question_key(query) AS k FROM search_daily
       WHERE project_id = $1::VARCHAR AND day >= $2::DATE - 7 AND day < $2::DATE
         AND hits >= $3::INTEGER AND coalesce(ctr, 0) = 0)
     SELECT query, hits::INTEGER AS hits FROM search_daily
     WHERE project_id = $1::VARCHAR AND day = $2::DATE AND hits >= $3::INTEGER AND coalesce(ctr, 0) = 0
       AND question_key(query) NOT IN (SELECT k FROM before)
     ORDER BY hits DESC, query COLLATE "C"`,
    [projectId, day, rules.minSearches],
  );
  return rows.map((r) =>
    makeAlert({
      projectId,
      day,
      rule: 'search',
      subject: String(r['query']),
      message: `new search term without a click: "${String(r['query'])}" searched ${Number(r['hits'])} times on ${day}, none clicked (not such a term in the 7 days before)`,
      fields: { term: String(r['query']), searches: Number(r['hits']), clickThroughRate: 0 },
    }),
  );
}

/** Pages with thumbs-down or comments that day well above their daily rate of the baseline. */
export async function feedbackAlerts(
  session: SqlSession,
  projectId: string,
  day: string,
  rules: AlertRules['feedback'],
  notes: string[],
): Promise<Alert[]> {
  const history = { days: rules.baselineDays, needed: Math.ceil(rules.baselineDays / 2) };
  if (!(await ready(session, projectId, 'feedback', day, history, notes, 'feedback'))) return [];
  const rows = await session.rows(
    `WITH f AS (
       SELECT path, (created_at AT TIME ZONE 'UTC')::DATE AS d,
         helpful = false AS down, coalesce(trim(comment), '') <> '' AS commented
       FROM feedback
       WHERE project_id = $1::VARCHAR AND (helpful = false OR coalesce(trim(comment), '') <> '')
         AND (created_at AT TIME ZONE 'UTC')::DATE BETWEEN $2::DATE - $3::INTEGER AND $2::DATE)
     SELECT path,
       count(*) FILTER (WHERE d = $2::DATE)::INTEGER AS n,
       count(*) FILTER (WHERE d = $2::DATE AND down)::INTEGER AS down,
       count(*) FILTER (WHERE d = $2::DATE AND commented)::INTEGER AS comments,
       count(*) FILTER (WHERE d < $2::DATE)::INTEGER AS before
     FROM f GROUP BY path HAVING count(*) FILTER (WHERE d = $2::DATE) >= $4::INTEGER
     ORDER BY n DESC, path COLLATE "C"`,
    [projectId, day, rules.baselineDays, rules.minCount],
  );
  return rows.flatMap((r) => {
    const n = Number(r['n']);
    const rate = Number(r['before']) / rules.baselineDays;
    if (n < rules.factor * rate) return [];
    const path = String(r['path']);
    return [
      makeAlert({
        projectId,
        day,
        rule: 'feedback',
        subject: path,
        message: `feedback burst on ${path}: ${n} thumbs-down or comments on ${day} (${Number(r['down'])} thumbs-down, ${Number(r['comments'])} with a comment), usually ${round(rate, 2)} a day over the ${rules.baselineDays} days before`,
        fields: {
          path,
          count: n,
          thumbsDown: Number(r['down']),
          comments: Number(r['comments']),
          usualPerDay: round(rate, 2),
        },
      }),
    ];
  });
}
