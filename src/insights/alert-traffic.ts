import type { Row, SqlSession } from '../load/session.js';
import type { AlertRules } from './alert-rules.js';
import { makeAlert, round, weekday, type Alert } from './alert.js';

/** 1.4826 × MAD estimates the standard deviation of normally distributed values. */
const MAD_TO_SIGMA = 1.4826;

/**
 * The day's human visitors and views of the site and the human visitors of its top pages, each
 * against the same weekday of the previous weeks: docs traffic has a strong weekly rhythm (a
 * Sunday is not a slow Monday), and the median and MAD shrug off the odd holiday or launch in the
 * baseline that a mean and standard deviation would be dragged by. Only complete days count,
 * on both sides.
 */
const SERIES_SQL = `
WITH days AS (
  SELECT ($2::DATE - (7 * k)::INTEGER) AS day, k::INTEGER AS k FROM generate_series(0, $3::INTEGER) AS t(k)
),
site AS (SELECT day, human FROM site_daily WHERE project_id = $1::VARCHAR AND NOT partial),
top AS (
  SELECT path FROM page_daily
  WHERE project_id = $1::VARCHAR AND day >= $2::DATE - 28 AND day < $2::DATE
  GROUP BY path ORDER BY sum(human) DESC, path COLLATE "C" LIMIT $4::INTEGER
),
series AS (
  SELECT 'visitors' AS metric, '' AS subject, d.k, s.human::DOUBLE PRECISION AS v
  FROM days AS d JOIN site AS s USING (day)
  UNION ALL
  SELECT 'views', '', d.k, v.human::DOUBLE PRECISION FROM days AS d
  JOIN site_views_daily AS v ON v.project_id = $1::VARCHAR AND v.day = d.day AND NOT v.partial
  UNION ALL
  SELECT 'page visitors', t.path, d.k, coalesce(p.human, 0)::DOUBLE PRECISION
  FROM days AS d JOIN site AS s USING (day) CROSS JOIN top AS t
  LEFT JOIN page_daily AS p ON p.project_id = $1::VARCHAR AND p.day = d.day AND p.path = t.path
),
usual AS (
  SELECT metric, subject,
    max(v) FILTER (WHERE k = 0) AS current,
    count(*) FILTER (WHERE k > 0)::INTEGER AS weeks,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FILTER (WHERE k > 0) AS median
  FROM series GROUP BY metric, subject
)
-- The MAD: the median distance from the median (DuckDB's mad(); PostgreSQL has none).
SELECT u.metric, u.subject, u.current, u.weeks, u.median,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(s.v - u.median)) FILTER (WHERE s.k > 0) AS mad
FROM usual AS u JOIN series AS s ON s.metric = u.metric AND s.subject = u.subject
GROUP BY u.metric, u.subject, u.current, u.weeks, u.median
ORDER BY u.metric COLLATE "C" DESC, u.subject COLLATE "C"`;

export async function trafficAlerts(
  session: SqlSession,
  projectId: string,
  day: string,
  rules: AlertRules['traffic'],
  notes: string[],
): Promise<Alert[]> {
  const rows = await session.rows(SERIES_SQL, [projectId, day, rules.weeks, rules.topPages]);
  const site = rows.find((r) => r['metric'] === 'visitors');
  if (site === undefined || site['current'] === null) {
    notes.push(`traffic: ${day} is missing or partial in visitors: no traffic alert from it`);
    return [];
  }
  const weeks = Number(site['weeks']);
  if (weeks < rules.minWeeks) {
    notes.push(
      `traffic: not enough history (${weeks} complete ${weekday(day)}s in the ${rules.weeks} weeks before ${day}, ${rules.minWeeks} needed): no traffic alert yet`,
    );
    return [];
  }
  return rows.flatMap((r) => {
    const a = judge(r, projectId, day, rules);
    return a === null ? [] : [a];
  });
}

function judge(r: Row, projectId: string, day: string, rules: AlertRules['traffic']): Alert | null {
  if (r['current'] === null || Number(r['weeks']) < rules.minWeeks) return null;
  const current = Number(r['current']);
  const median = Number(r['median']);
  const mad = Number(r['mad']);
  const subject = String(r['subject']);
  if (subject !== '' && median < rules.minPageMedian) return null;
  const width = Math.max(rules.threshold * MAD_TO_SIGMA * mad, (rules.minChangePct / 100) * median);
  if (Math.abs(current - median) <= width) return null;
  const changePct = median === 0 ? null : round(((current - median) / median) * 100);
  const metric = String(r['metric']);
  const what = subject === '' ? `human ${metric}` : `human visitors of ${subject}`;
  const move =
    changePct === null
      ? `${current} against none usually`
      : `${Math.abs(changePct)}% ${changePct < 0 ? 'below' : 'above'}`;
  const wd = weekday(day);
  return makeAlert({
    projectId,
    day,
    rule: 'traffic',
    subject: subject === '' ? metric : subject,
    message: `${what} ${current} on ${wd} ${day}: ${move} the usual ${round(median)} (median of ${String(r['weeks'])} ${wd}s, band ${round(Math.max(0, median - width))} to ${round(median + width)})`,
    fields: {
      metric: subject === '' ? metric : 'page visitors',
      value: current,
      median: round(median),
      mad: round(mad),
      bandLow: round(Math.max(0, median - width)),
      bandHigh: round(median + width),
      changePct,
      weeks: Number(r['weeks']),
    },
  });
}
