import type { Row, SqlSession } from '../load/session.js';
import { addDays } from '../util/day.js';
import { maskEmails } from '../util/personal-data.js';
import { utcStart } from '../load/sql-dialect.js';
import type {
  CallerDay,
  CallersSection,
  SearchSection,
  SearchTerm,
  ViewsDay,
  ViewsPage,
  ViewsPeriod,
  ViewsSection,
} from './model.js';

/**
 * The report's sections for the streams besides visitors (views, searches, caller_stats). Each is
 * read only when v_coverage has a row for that stream and project: a stream never synced gives no
 * section at all rather than one full of zeros that would read as "nobody searched".
 */

/**
 * Fewest searches of a term in the last 28 days before its CTR is judged: below 20 one search
 * moves the CTR by 5 points or more, so a 0% would mostly be chance (two people who did not
 * click), not a page that is missing.
 */
export const GAP_MIN_HITS = 20;

export interface StreamWindow {
  readonly projectId: string;
  /** The report window (visitors): the views and callers days shown are the ones inside it. */
  readonly from: string;
  readonly to: string;
  readonly topPages: number;
  readonly topTerms: number;
}

function num(row: Row, col: string): number {
  const v = row[col];
  if (v === null || v === undefined) return 0;
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function numOrNull(row: Row, col: string): number | null {
  const v = row[col];
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : Number(v);
  return Number.isFinite(n) ? n : null;
}

function strOrNull(row: Row, col: string): string | null {
  const v = row[col];
  return typeof v === 'string' ? v : null;
}

/** The streams besides visitors that have at least one loaded day for the project. */
export async function loadedStreams(session: SqlSession, projectId: string): Promise<Set<string>> {
  const rows = await session.rows('SELECT stream FROM v_coverage WHERE project_id = $1::VARCHAR', [
    projectId,
  ]);
  return new Set(rows.map((r) => String(r['stream'])));
}

/**
 * Views per complete day of the report window, and the two 7-day periods to its last views day
 * (read from before the window too, so a 7-day report still compares whole weeks). One row a day.
 */
export async function gatherViews(session: SqlSession, w: StreamWindow): Promise<ViewsSection | undefined> {
  const rows = await session.rows(
    `SELECT v.day, v.human, v.ai, v.total, v.total_7d_avg, v.avg_7d_full,
            v.views_per_visitor, s.total AS visitors,
            CAST(v.total - p.total AS DOUBLE PRECISION) / nullif(p.total, 0) AS wow_pct
       FROM v_views_daily v
       LEFT JOIN v_views_daily p ON p.project_id = v.project_id AND p.day = v.day - 7 AND NOT p.partial
       LEFT JOIN site_daily s ON s.project_id = v.project_id AND s.day = v.day AND NOT s.partial
      WHERE v.project_id = $1::VARCHAR AND NOT v.partial
        AND v.day <= $2::DATE
      ORDER BY v.day`,
    [w.projectId, w.to],
  );
  const daily = rows.filter((r) => String(r['day']) >= w.from).map(toViewsDay);
  const latest = daily.at(-1);
  if (!latest) return undefined;
  const to = latest.day;
  const period = (from: string, until: string): { p: ViewsPeriod; rows: Row[] } => {
    const inside = rows.filter((r) => String(r['day']) >= from && String(r['day']) <= until);
    const views = inside.reduce((s, r) => s + num(r, 'total'), 0);
    return { p: { from, to: until, daysLoaded: inside.length, views }, rows: inside };
  };
  const last = period(addDays(to, -6), to);
  const prev = period(addDays(to, -13), addDays(to, -7));
  const whole = last.p.daysLoaded === 7 && prev.p.daysLoaded === 7;
  const both = last.rows.filter((r) => r['visitors'] !== null && r['visitors'] !== undefined);
  const visitorDays = both.reduce((s, r) => s + num(r, 'visitors'), 0);
  return {
    daily,
    latest,
    last7: last.p,
    prev7: prev.p,
    last7Change: whole && prev.p.views > 0 ? (last.p.views - prev.p.views) / prev.p.views : null,
    viewsPerVisitor7d: both.length === 7 && visitorDays > 0 ? last.p.views / visitorDays : null,
    topPages: await viewsPages(session, w, to, whole),
  };
}

function toViewsDay(r: Row): ViewsDay {
  return {
    day: String(r['day']),
    human: num(r, 'human'),
    ai: num(r, 'ai'),
    total: num(r, 'total'),
    total7dAvg: r['avg_7d_full'] === true ? numOrNull(r, 'total_7d_avg') : null,
    totalWowPct: numOrNull(r, 'wow_pct'),
    viewsPerVisitor: numOrNull(r, 'views_per_visitor'),
  };
}

/** Pages by views over the 7 days to `to`, with the 7 before; partial days left out. */
async function viewsPages(
  session: SqlSession,
  w: StreamWindow,
  to: string,
  whole: boolean,
): Promise<ViewsPage[]> {
  const rows = await session.rows(
    `WITH p AS (
       SELECT pv.path,
              coalesce(sum(pv.total) FILTER (WHERE pv.day > $2::DATE - 7), 0) AS views_7d,
              coalesce(sum(pv.total) FILTER (WHERE pv.day <= $2::DATE - 7), 0) AS views_prev_7d
         FROM page_views_daily pv
         JOIN site_views_daily s ON s.project_id = pv.project_id AND s.day = pv.day AND NOT s.partial
        WHERE pv.project_id = $1::VARCHAR AND pv.day > $2::DATE - 14 AND pv.day <= $2::DATE
        GROUP BY pv.path)
     SELECT row_number() OVER (ORDER BY views_7d DESC, ${session.sql.codePoint('path')}) AS rank, p.* FROM p
      WHERE views_7d > 0 ORDER BY rank LIMIT $3::INTEGER`,
    [w.projectId, to, w.topPages],
  );
  return rows.map((r) => {
    const now = num(r, 'views_7d');
    const before = num(r, 'views_prev_7d');
    return {
      rank: num(r, 'rank'),
      path: String(r['path']),
      views7d: now,
      viewsPrev7d: before,
      changePct: whole && before > 0 ? (now - before) / before : null,
    };
  });
}

/** Search days of the project with what makes them usable: partial (today) and truncated ones. */
const SEARCH_DAYS = `
  days AS (
    SELECT t.day, t.total_searches,
           t.truncated OR coalesce(w.truncated, false) AS truncated,
           coalesce(w.fetched_at < ${utcStart('w.window_end')}, false) AS partial
      FROM search_totals_daily t
      LEFT JOIN sync_windows w ON w.project_id = t.project_id AND w.stream = 'searches'
       AND w.window_start = t.day AND w.status = 'loaded'
     WHERE t.project_id = $1::VARCHAR),
  l AS (SELECT max(day) AS last_day FROM days WHERE NOT partial),
  d AS (SELECT days.*, l.last_day FROM days, l
         WHERE NOT days.partial AND days.day > l.last_day - 28 AND days.day <= l.last_day)`;

/**
 * Top terms of the last 7 complete days and the docs gaps of the last 28, per term as
 * v_search_terms defines them, but ending on the last COMPLETE day: a partial today would show
 * half a day's searches as a fall.
 */
export async function gatherSearches(
  session: SqlSession,
  w: StreamWindow,
): Promise<SearchSection | undefined> {
  const [meta] = await session.rows(
    `WITH ${SEARCH_DAYS}
     SELECT max(last_day) AS last_day,
            count(*) FILTER (WHERE day > last_day - 7) AS days_7d,
            count(*) FILTER (WHERE day > last_day - 7 AND NOT truncated) AS full_7d,
            count(*) FILTER (WHERE day <= last_day - 7 AND day > last_day - 14) AS days_prev_7d,
            count(*) FILTER (WHERE day <= last_day - 7 AND day > last_day - 14 AND NOT truncated) AS full_prev_7d,
            count(*) AS days_28d,
            count(*) FILTER (WHERE truncated) AS truncated_28d,
            coalesce(sum(total_searches) FILTER (WHERE day > last_day - 7), 0) AS searches_7d,
            (SELECT sum(s.hits * s.ctr) / nullif(sum(s.hits), 0)
               FROM search_daily s JOIN d d2 ON d2.day = s.day WHERE s.project_id = $1::VARCHAR) AS ctr_28d
       FROM d`,
    [w.projectId],
  );
  if (!meta || meta['last_day'] === null || meta['last_day'] === undefined) return undefined;
  const comparable = num(meta, 'full_7d') === 7 && num(meta, 'full_prev_7d') === 7;
  const terms = await searchTerms(session, w);
  const toTerm = (r: Row): SearchTerm => {
    const now = num(r, 'hits_7d');
    const before = num(r, 'hits_prev_7d');
    return {
      query: maskEmails(String(r['query'])),
      hits7d: now,
      hitsPrev7d: before,
      hitsChangePct: comparable && before > 0 ? (now - before) / before : null,
      ctr7d: numOrNull(r, 'ctr_7d'),
      hits28d: num(r, 'hits_28d'),
      ctr28d: numOrNull(r, 'ctr_28d'),
      zeroClickShare28d: numOrNull(r, 'zero_click_28d'),
      topClickedPath: strOrNull(r, 'top_path'),
    };
  };
  return {
    lastDay: strOrNull(meta, 'last_day') ?? '',
    daysLoaded7d: num(meta, 'days_7d'),
    daysLoadedPrev7d: num(meta, 'days_prev_7d'),
    daysLoaded28d: num(meta, 'days_28d'),
    truncatedDays28d: num(meta, 'truncated_28d'),
    searches7d: num(meta, 'searches_7d'),
    ctr28d: numOrNull(meta, 'ctr_28d'),
    topTerms: terms.filter((r) => num(r, 'list') === 1).map(toTerm),
    gapMinHits: GAP_MIN_HITS,
    gaps: terms.filter((r) => num(r, 'list') === 2).map(toTerm),
  };
}

/** One pass over the 28 days feeds both lists (1: top of the last 7 days, 2: the gaps). */
async function searchTerms(session: SqlSession, w: StreamWindow): Promise<Row[]> {
  const query = session.sql.codePoint('query');
  return session.rows(
    `WITH ${SEARCH_DAYS},
     t AS (
       SELECT s.query,
              coalesce(sum(s.hits) FILTER (WHERE s.day > d.last_day - 7), 0) AS hits_7d,
              coalesce(sum(s.hits) FILTER (WHERE s.day <= d.last_day - 7 AND s.day > d.last_day - 14), 0) AS hits_prev_7d,
              sum(s.hits * s.ctr) FILTER (WHERE s.day > d.last_day - 7)
                / nullif(sum(s.hits) FILTER (WHERE s.day > d.last_day - 7), 0) AS ctr_7d,
              sum(s.hits) AS hits_28d,
              sum(s.hits * s.ctr) / nullif(sum(s.hits), 0) AS ctr_28d,
              CAST(coalesce(sum(s.hits) FILTER (WHERE s.ctr = 0), 0) AS DOUBLE PRECISION)
                / nullif(sum(s.hits), 0) AS zero_click_28d,
              -- The path of the term's most searched day, the later day on a tie (arg_max on DuckDB).
              (array_agg(s.top_clicked_path ORDER BY s.hits DESC, s.day DESC)
                FILTER (WHERE s.top_clicked_path IS NOT NULL))[1] AS top_path
         FROM search_daily s JOIN d ON d.day = s.day
        WHERE s.project_id = $1::VARCHAR
        GROUP BY s.query),
     lists AS (
       SELECT 1 AS list, row_number() OVER (ORDER BY hits_7d DESC, ${query}) AS ord, t.* FROM t WHERE hits_7d > 0
       UNION ALL
       SELECT 2, row_number() OVER (ORDER BY ctr_28d ASC, zero_click_28d DESC, hits_28d DESC, ${query}), t.*
         FROM t
        WHERE hits_28d >= $3::INTEGER
          -- Below the site's own average: a term clicked as often as most is no gap, however low.
          AND ctr_28d < (SELECT sum(hits_28d * ctr_28d) / nullif(sum(hits_28d), 0) FROM t))
     SELECT * FROM lists WHERE ord <= $2::INTEGER ORDER BY list, ord`,
    [w.projectId, w.topTerms, GAP_MIN_HITS],
  );
}

/** Assistant queries by caller per complete day of the report window, and the 7 days to its last. */
export async function gatherCallers(
  session: SqlSession,
  w: StreamWindow,
): Promise<CallersSection | undefined> {
  const rows = await session.rows(
    `SELECT day, web, api, other, total
       FROM v_assistant_callers_daily
      WHERE project_id = $1::VARCHAR AND NOT partial
        AND day <= $2::DATE
      ORDER BY day`,
    [w.projectId, w.to],
  );
  const all = rows.map((r) =>
    callerDay(String(r['day']), num(r, 'web'), num(r, 'api'), num(r, 'other'), num(r, 'total')),
  );
  const daily = all.filter((d) => d.day >= w.from);
  const latest = daily.at(-1);
  if (!latest) return undefined;
  const from = addDays(latest.day, -6);
  const week = all.filter((d) => d.day >= from);
  const sum = (k: 'web' | 'api' | 'other' | 'total'): number => week.reduce((s, d) => s + d[k], 0);
  return {
    daily,
    latest,
    last7: {
      ...callerDay(from, sum('web'), sum('api'), sum('other'), sum('total')),
      to: latest.day,
      daysLoaded: week.length,
    },
  };
}

function callerDay(day: string, web: number, api: number, other: number, total: number): CallerDay {
  const share = (n: number): number | null => (total > 0 ? n / total : null);
  return {
    day,
    web,
    api,
    other,
    total,
    webShare: share(web),
    apiShare: share(api),
    otherShare: share(other),
  };
}
