import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../load/sql.js';
import type { AlertRules } from './alert-rules.js';
import { makeAlert, round, type Alert } from './alert.js';
import { streamEverLoaded } from './stream-days.js';

/**
 * The day's unanswered share against the median share of the baseline days (complete days with
 * at least one question): a median, because one bad day in the baseline must not raise the bar.
 */
export async function assistantAlerts(
  conn: DuckDBConnection,
  projectId: string,
  day: string,
  rules: AlertRules['assistant'],
  notes: string[],
): Promise<Alert[]> {
  const rows = await queryRows(
    conn,
    `SELECT
       any_value(turns) FILTER (WHERE day = $2::DATE)::INTEGER AS turns,
       any_value(unanswered) FILTER (WHERE day = $2::DATE)::INTEGER AS unanswered,
       any_value(partial) FILTER (WHERE day = $2::DATE) AS partial,
       median(unanswered / turns) FILTER (WHERE day < $2::DATE AND NOT partial AND turns > 0) AS usual,
       count(*) FILTER (WHERE day < $2::DATE AND NOT partial AND turns > 0)::INTEGER AS history
     FROM v_assistant_daily
     WHERE project_id = $1 AND day BETWEEN $2::DATE - $3::INTEGER AND $2::DATE`,
    [projectId, day, rules.baselineDays],
  );
  const r = rows[0] ?? {};
  if (r['turns'] === null && !(await streamEverLoaded(conn, projectId, 'assistant'))) return [];
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
  const top = await topUnanswered(conn, projectId, day, rules.topQuestions);
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
  conn: DuckDBConnection,
  projectId: string,
  day: string,
  limit: number,
): Promise<{ query: string; times: number }[]> {
  if (limit === 0) return [];
  const rows = await queryRows(
    conn,
    `SELECT mode(query) AS query, count(*)::INTEGER AS times
     FROM assistant_turns
     WHERE project_id = $1 AND (ts AT TIME ZONE 'UTC')::DATE = $2::DATE AND resolution_status = 'unanswered'
     GROUP BY lower(regexp_replace(trim(query), '\\s+', ' ', 'g'))
     ORDER BY times DESC, query LIMIT $3::INTEGER`,
    [projectId, day, limit],
  );
  return rows.map((q) => ({ query: String(q['query']), times: Number(q['times']) }));
}
