import type { SqlSession } from '../load/session.js';
import type { AlertRules } from './alert-rules.js';
import { makeAlert, round, type Alert } from './alert.js';
import { streamEverLoaded } from './stream-days.js';

/**
 * The day's unanswered share against the median share of the baseline days (complete days with
 * at least one question): a median, because one bad day in the baseline must not raise the bar.
 */
export async function assistantAlerts(
  session: SqlSession,
  projectId: string,
  day: string,
  rules: AlertRules['assistant'],
  notes: string[],
): Promise<Alert[]> {
  // One row a day: max and bool_or pick the day's values (any_value is PostgreSQL 16+ only).
  const rows = await session.rows(
    `SELECT
       max(turns) FILTER (WHERE day = $2::DATE)::INTEGER AS turns,
       max(unanswered) FILTER (WHERE day = $2::DATE)::INTEGER AS unanswered,
       bool_or(partial) FILTER (WHERE day = $2::DATE) AS partial,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY unanswered::DOUBLE PRECISION / nullif(turns, 0))
         FILTER (WHERE day < $2::DATE AND NOT partial AND turns > 0) AS usual,
       count(*) FILTER (WHERE day < $2::DATE AND NOT partial AND turns > 0)::INTEGER AS history
     FROM v_assistant_daily
     WHERE project_id = $1::VARCHAR AND day BETWEEN $2::DATE - $3::INTEGER AND $2::DATE`,
    [projectId, day, rules.baselineDays],
  );
  const r = rows[0] ?? {};
  if (r['turns'] === null && !(await streamEverLoaded(session, projectId, 'assistant'))) return [];
  if (r['turns'] === null || r['turns'] === undefined || r['partial'] !== false) {
    notes.push(
      `assistant: ${day} is ${r['partial'] === true ? 'partial' : 'missing'} in assistant: no assistant alert from it`,
    );
    return [];
  }
  const history = Number(r['history']);
  if (history < rules.minHistoryDays) {
    notes.push(
      `assistant: not enough history (${history} days with questions in the ${rules.baselineDays} days before ${day}, ${rules.minHistoryDays} needed): no assistant alert yet`,
    );
    return [];
  }
  const turns = Number(r['turns']);
  if (turns < rules.minTurns) return [];
  const share = (Number(r['unanswered']) / turns) * 100;
  const usual = Number(r['usual']) * 100;
  if (share < usual + rules.increasePoints) return [];
  const top = await topUnanswered(session, projectId, day, rules.topQuestions);
  const list = top.map((q) => `"${q.query}" (${q.times})`).join(', ');
  return [
    makeAlert({
      projectId,
      day,
      rule: 'assistant',
      subject: 'unanswered share',
      message: `assistant left ${round(share)}% of ${turns} questions unanswered on ${day}, usually ${round(usual)}% (median of ${history} days)${list === '' ? '' : `; top unanswered: ${list}`}`,
      fields: {
        questions: turns,
        unanswered: Number(r['unanswered']),
        unansweredPct: round(share),
        usualPct: round(usual),
        topUnanswered: top.map((q) => q.query).join(' | '),
      },
    }),
  ];
}

async function topUnanswered(
  session: SqlSession,
  projectId: string,
  day: string,
  limit: number,
): Promise<{ query: string; times: number }[]> {
  if (limit === 0) return [];
  // The spelling asked most often names each question (ties: the first in code-point order).
  const rows = await session.rows(
    `WITH asked AS (
       SELECT question_key(query) AS k, query
       FROM assistant_turns
       WHERE project_id = $1::VARCHAR AND (ts AT TIME ZONE 'UTC')::DATE = $2::DATE
         AND resolution_status = 'unanswered'),
     spelled AS (
       SELECT query, sum(count(*)) OVER (PARTITION BY k) AS times,
         row_number() OVER (PARTITION BY k ORDER BY count(*) DESC, query COLLATE "C") AS pick
       FROM asked GROUP BY k, query)
     SELECT query, times::INTEGER AS times FROM spelled WHERE pick = 1
     ORDER BY times DESC, query COLLATE "C" LIMIT $3::INTEGER`,
    [projectId, day, limit],
  );
  return rows.map((q) => ({ query: String(q['query']), times: Number(q['times']) }));
}
