import { readGaps, readOutcomes } from '../insights/gaps.js';
import { bothWhole } from '../insights/stream-days.js';
import { hasRelations } from '../load/relations.js';
import type { Row, SqlSession } from '../load/session.js';
import { addDays, daysBetween, todayUtc } from '../util/day.js';
import type {
  DailyPoint,
  EventOnlyReport,
  GapsSection,
  PageTrend,
  PeriodTotals,
  ProjectReport,
  ReportData,
  WeekRow,
} from './model.js';
import {
  gatherAssistant,
  gatherFeedback,
  gatherUniques,
  loadedEventStreams,
  type EventWindow,
} from './events.js';
import { eventProjects, readEventStream, type EventProject } from '../insights/event-stream.js';
import { gatherCallers, gatherSearches, gatherViews, loadedStreams } from './streams.js';

export interface GatherOptions {
  /** Calendar days the report covers, ending at each project's last loaded day. */
  readonly days: number;
  /** Default: every project in the database. */
  readonly projects?: readonly string[] | undefined;
  readonly topPages?: number;
  readonly movers?: number;
  /** Search terms listed, in the top list and among the docs gaps. */
  readonly topTerms?: number;
  /** Open feedback items and unanswered assistant questions listed. */
  readonly topItems?: number;
  /**
   * --include-personal-data: feedback contacts (email addresses) are read and shown. Without it
   * the column is never read, so no output can carry it.
   */
  readonly includePersonalData?: boolean;
  readonly now?: Date;
  /** The projects with events, when the caller read them already (eventProjects: a scan of analytics_events). */
  readonly eventProjects?: readonly EventProject[];
}

/** count + sums of one day range, as columns named `${prefix}_days`, `${prefix}_human`, ... */
function sums(prefix: string, where: string): string {
  return [
    `count(d.day) FILTER (WHERE ${where}) AS ${prefix}_days`,
    ...['human', 'ai', 'total'].map(
      (c) => `coalesce(sum(d.${c}) FILTER (WHERE ${where}), 0) AS ${prefix}_${c}`,
    ),
  ].join(',\n            ');
}

function num(row: Row, col: string): number {
  const v = row[col];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v === null || v === undefined) return 0;
  return Number(v);
}

function numOrNull(row: Row, col: string): number | null {
  const v = row[col];
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : Number(v);
  return Number.isFinite(n) ? n : null;
}

function str(row: Row, col: string): string {
  const v = row[col];
  return typeof v === 'string' ? v : String(v);
}

/** The views the report reads: a database without them is not one sync wrote. */
const REPORT_VIEWS = ['v_site_daily', 'v_site_weekly', 'v_page_trends', 'v_coverage'];

/** Whether the destination has every view the report reads (in the schema the session reads). */
export async function hasReportViews(session: SqlSession): Promise<boolean> {
  return hasRelations(session, REPORT_VIEWS, 'VIEW');
}

export async function listProjects(session: SqlSession): Promise<string[]> {
  const rows = await session.rows(
    `SELECT project_id FROM v_coverage WHERE stream = 'visitors' ORDER BY ${session.sql.codePoint('project_id')}`,
  );
  return rows.map((r) => str(r, 'project_id'));
}

/** Reads everything the report shows, one project after another, with SQL over the views. */
export async function gatherReport(session: SqlSession, opts: GatherOptions): Promise<ReportData> {
  const projects = opts.projects ?? (await listProjects(session));
  const reports: ProjectReport[] = [];
  for (const projectId of projects) {
    const r = await gatherProject(session, projectId, opts);
    if (r) reports.push(r);
  }
  const eventOnly = await gatherEventOnly(session, opts, new Set(reports.map((r) => r.projectId)));
  const base = {
    generatedAt: (opts.now ?? new Date()).toISOString(),
    days: opts.days,
    projects: reports,
    ...(eventOnly.length > 0 ? { eventOnly } : {}),
  };
  if (reports.length > 0 || eventOnly.length > 0) return base;
  const others = await session.rows(
    `SELECT DISTINCT stream FROM v_coverage WHERE stream <> 'visitors' ORDER BY ${session.sql.codePoint('stream')}`,
  );
  return others.length === 0 ? base : { ...base, withoutVisitors: others.map((r) => str(r, 'stream')) };
}

/**
 * The projects with events and no visitors days (those with both have the section in their
 * report): each one's event-stream section up to its last complete day, the UTC day before today
 * when events of today are loaded (today's would read as a collapse).
 */
async function gatherEventOnly(
  session: SqlSession,
  opts: GatherOptions,
  reported: ReadonlySet<string>,
): Promise<EventOnlyReport[]> {
  const yesterday = addDays(todayUtc((opts.now ?? new Date()).getTime()), -1);
  const out: EventOnlyReport[] = [];
  for (const { projectId, lastDay } of opts.eventProjects ?? (await eventProjects(session))) {
    if (reported.has(projectId) || (opts.projects !== undefined && !opts.projects.includes(projectId)))
      continue;
    const eventStream = await readEventStream(session, {
      projectId,
      to: lastDay < yesterday ? lastDay : yesterday,
      days: opts.days,
      topReferrers: opts.topItems ?? 10,
    });
    if (eventStream) out.push({ projectId, eventStream });
  }
  return out;
}

async function gatherProject(
  session: SqlSession,
  projectId: string,
  opts: GatherOptions,
): Promise<ProjectReport | undefined> {
  // The window ends at the last complete loaded day, the same day v_page_trends counts its 7
  // days back from: a partial today (sync --include-today) against full days would read as a
  // collapse. It starts no earlier than the first loaded day: days never synced are not "gaps".
  const [anchor] = await session.rows(
    `WITH l AS (SELECT max(day) AS last_day FROM site_daily WHERE project_id = $1::VARCHAR AND NOT partial)
     SELECT c.first_day, l.last_day, c.last_day AS held_until, c.days_loaded, c.days_missing, c.days_partial,
            greatest(l.last_day - ($2::INTEGER - 1), c.first_day) AS window_from
       FROM v_coverage c, l WHERE c.project_id = $1::VARCHAR AND c.stream = 'visitors'`,
    [projectId, opts.days],
  );
  if (!anchor || anchor['last_day'] === null || anchor['last_day'] === undefined) return undefined;
  const to = str(anchor, 'last_day');
  const windowFrom = str(anchor, 'window_from');

  const dailyRows = await session.rows(
    `SELECT d.day, d.human, d.ai, d.total, d.partial, d.ai_share,
            d.human_7d_avg, d.ai_7d_avg, d.total_7d_avg, d.total_28d_avg, d.total_wow_pct,
            d.avg_7d_days, d.avg_7d_full, d.avg_28d_days,
            CAST(d.human - w.human AS DOUBLE PRECISION) / nullif(w.human, 0) AS human_wow_pct,
            CAST(d.ai - w.ai AS DOUBLE PRECISION) / nullif(w.ai, 0) AS ai_wow_pct
       FROM v_site_daily d
       LEFT JOIN v_site_daily w ON w.project_id = d.project_id AND w.day = d.day - 7
      WHERE d.project_id = $1::VARCHAR
        AND d.day BETWEEN $2::DATE AND $3::DATE
      ORDER BY d.day`,
    [projectId, windowFrom, to],
  );
  const daily = dailyRows.map(toDailyPoint);
  const latest = daily.at(-1);
  if (!latest) return undefined;

  const [periods] = await session.rows(
    `WITH p AS (
       SELECT $2::DATE AS to_day, $3::DATE AS from_day)
     SELECT p.to_day - 6 AS last_from,
            p.to_day - 13 AS prev_from,
            p.to_day - 7 AS prev_to,
            ${sums('win', 'd.day >= p.from_day')},
            ${sums('last', 'd.day > p.to_day - 7')},
            ${sums('prev', 'd.day <= p.to_day - 7 AND d.day > p.to_day - 14')}
       FROM p LEFT JOIN v_site_daily d
         ON d.project_id = $1::VARCHAR AND d.day <= p.to_day AND d.day >= least(p.from_day, p.to_day - 13)
      GROUP BY p.to_day, p.from_day`,
    [projectId, to, windowFrom],
  );
  if (!periods) return undefined;
  const period = (prefix: 'win' | 'last' | 'prev', from: string, until: string): PeriodTotals => {
    const human = num(periods, `${prefix}_human`);
    const ai = num(periods, `${prefix}_ai`);
    const daysLoaded = num(periods, `${prefix}_days`);
    if (daysLoaded === 0) {
      const none = { humanVisitorDays: null, aiVisitorDays: null, totalVisitorDays: null, aiShare: null };
      return { from, to: until, daysLoaded, ...none, notLoaded: `no day of ${from} to ${until} is loaded` };
    }
    return {
      from,
      to: until,
      daysLoaded,
      humanVisitorDays: human,
      aiVisitorDays: ai,
      totalVisitorDays: num(periods, `${prefix}_total`),
      // Same definition as v_site_daily.ai_share: AI out of human + AI.
      aiShare: human + ai > 0 ? ai / (human + ai) : null,
    };
  };
  const windowTotals = period('win', windowFrom, to);
  const last7 = period('last', str(periods, 'last_from'), to);
  const prev7 = period('prev', str(periods, 'prev_from'), str(periods, 'prev_to'));
  // A change needs both 7-day periods whole; the pages also need no page cap on either.
  const site = await bothWhole(session, projectId, 'visitors', last7.from, 7);
  const pages = site.whole
    ? await bothWhole(session, projectId, 'visitors', last7.from, 7, { untruncated: true })
    : site;

  const weeklyRows = await session.rows(
    `SELECT w.iso_year, w.iso_week, w.week_start, w.days, w.human_visitor_days, w.ai_visitor_days,
            w.total_visitor_days, w.total_visitor_days_change_pct, w.has_partial_day, w.complete,
            coalesce(p.complete, false) AS prev_complete
       FROM v_site_weekly w
       LEFT JOIN v_site_weekly p ON p.project_id = w.project_id AND p.week_start = w.week_start - 7
      WHERE w.project_id = $1::VARCHAR AND w.days > 0
        AND w.week_start > $2::DATE - 7 AND w.week_start <= $3::DATE
      ORDER BY w.week_start`,
    [projectId, windowFrom, to],
  );

  // One pass over v_page_trends (it aggregates page_daily) feeds all three lists.
  const path = session.sql.codePoint('path');
  const trends = await session.rows(
    `WITH t AS MATERIALIZED (
       SELECT rank, path, human_visitor_days_7d, ai_visitor_days_7d, total_visitor_days_7d,
              CASE WHEN $4::BOOLEAN THEN total_visitor_days_prev_7d END AS total_visitor_days_prev_7d,
              CASE WHEN $4::BOOLEAN THEN change END AS change,
              CASE WHEN $4::BOOLEAN THEN change_pct END AS change_pct, ai_share_7d
         FROM v_page_trends WHERE project_id = $1::VARCHAR),
     lists AS (
       SELECT 1 AS list, row_number() OVER (ORDER BY rank) AS ord, t.* FROM t
       UNION ALL
       SELECT 2, row_number() OVER (ORDER BY change DESC, ${path}), t.* FROM t WHERE change > 0
       UNION ALL
       SELECT 3, row_number() OVER (ORDER BY change ASC, ${path}), t.* FROM t WHERE change < 0)
     SELECT * FROM lists
      WHERE ord <= CASE list WHEN 1 THEN $2::INTEGER ELSE $3::INTEGER END
      ORDER BY list, ord`,
    [projectId, opts.topPages ?? 10, opts.movers ?? 5, pages.whole],
  );
  const list = (n: number): PageTrend[] => trends.filter((r) => num(r, 'list') === n).map(toPageTrend);

  const streams = await streamSections(session, {
    projectId,
    from: windowFrom,
    to,
    topPages: opts.topPages ?? 10,
    topTerms: opts.topTerms ?? 10,
    topItems: opts.topItems ?? 10,
    now: opts.now ?? new Date(),
    personalData: opts.includePersonalData === true,
  });
  // True uniques of the last 7 days and of --days, to the report's last day.
  const eventStream = await readEventStream(session, {
    projectId,
    to,
    days: opts.days,
    topReferrers: opts.topItems ?? 10,
  });
  return {
    projectId,
    coverage: {
      firstDay: str(anchor, 'first_day'),
      // What the database holds, a partial last day included (it is counted in daysLoaded too);
      // the report's window ends on the last complete day instead (`to`).
      lastDay: str(anchor, 'held_until'),
      daysLoaded: num(anchor, 'days_loaded'),
      missingDays: num(anchor, 'days_missing'),
      partialDays: num(anchor, 'days_partial'),
    },
    window: { from: windowFrom, to, days: daysBetween(windowFrom, to) + 1, daysLoaded: daily.length },
    windowTotals,
    daily,
    latest,
    last7,
    prev7,
    comparable: site.whole,
    pagesComparable: pages.whole,
    last7Change:
      site.whole &&
      last7.totalVisitorDays !== null &&
      prev7.totalVisitorDays !== null &&
      prev7.totalVisitorDays > 0
        ? (last7.totalVisitorDays - prev7.totalVisitorDays) / prev7.totalVisitorDays
        : null,
    weekly: weeklyRows.map(toWeekRow),
    topPages: list(1),
    moversUp: list(2),
    moversDown: list(3),
    ...streams,
    ...(eventStream ? { eventStream } : {}),
  };
}

/** The sections of the other streams, each only when that stream is loaded (absent from --json otherwise). */
async function streamSections(
  session: SqlSession,
  w: EventWindow,
): Promise<
  Pick<ProjectReport, 'views' | 'searches' | 'callers' | 'feedback' | 'assistant' | 'uniques' | 'gaps'>
> {
  const loaded = await loadedStreams(session, w.projectId);
  const views = loaded.has('views') ? await gatherViews(session, w) : undefined;
  const searches = loaded.has('searches') ? await gatherSearches(session, w) : undefined;
  const callers = loaded.has('caller_stats') ? await gatherCallers(session, w) : undefined;
  // The event streams and the period grains are read from their tables and sync_windows directly.
  const events = await loadedEventStreams(session, w.projectId);
  const feedback = events.has('feedback') ? await gatherFeedback(session, w) : undefined;
  const assistant = events.has('assistant') ? await gatherAssistant(session, w) : undefined;
  const uniques = await gatherUniques(session, w.projectId);
  const gaps = await gatherGaps(session, w);
  return {
    ...(views ? { views } : {}),
    ...(searches ? { searches } : {}),
    ...(callers ? { callers } : {}),
    ...(feedback ? { feedback } : {}),
    ...(assistant ? { assistant } : {}),
    ...(uniques ? { uniques } : {}),
    ...(gaps ? { gaps } : {}),
  };
}

/** The report's window is the gaps' window: its days, ending on its last day. */
async function gatherGaps(session: SqlSession, w: EventWindow): Promise<GapsSection | undefined> {
  const gaps = await readGaps(session, {
    days: daysBetween(w.from, w.to) + 1,
    to: addDays(w.to, 1),
    projectId: w.projectId,
    limit: w.topItems,
  });
  const outcomes = await readOutcomes(session, w.projectId, w.topItems);
  return gaps.length > 0 || outcomes.length > 0 ? { gaps, outcomes } : undefined;
}

function toDailyPoint(r: Row): DailyPoint {
  const full7 = r['avg_7d_full'] === true;
  const avg7 = (col: string): number | null => (full7 ? numOrNull(r, col) : null);
  return {
    day: str(r, 'day'),
    human: num(r, 'human'),
    ai: num(r, 'ai'),
    total: num(r, 'total'),
    partial: r['partial'] === true,
    aiShare: numOrNull(r, 'ai_share'),
    human7dAvg: avg7('human_7d_avg'),
    ai7dAvg: avg7('ai_7d_avg'),
    total7dAvg: avg7('total_7d_avg'),
    total28dAvg: num(r, 'avg_28d_days') === 28 ? numOrNull(r, 'total_28d_avg') : null,
    avg7dDays: num(r, 'avg_7d_days'),
    humanWowPct: numOrNull(r, 'human_wow_pct'),
    aiWowPct: numOrNull(r, 'ai_wow_pct'),
    totalWowPct: numOrNull(r, 'total_wow_pct'),
  };
}

function toWeekRow(r: Row): WeekRow {
  return {
    isoYear: num(r, 'iso_year'),
    isoWeek: num(r, 'iso_week'),
    weekStart: str(r, 'week_start'),
    days: num(r, 'days'),
    humanVisitorDays: num(r, 'human_visitor_days'),
    aiVisitorDays: num(r, 'ai_visitor_days'),
    totalVisitorDays: num(r, 'total_visitor_days'),
    totalVisitorDaysChangePct: numOrNull(r, 'total_visitor_days_change_pct'),
    hasPartialDay: r['has_partial_day'] === true,
    complete: r['complete'] === true,
    comparable: r['complete'] === true && r['prev_complete'] === true,
  };
}

function toPageTrend(r: Row): PageTrend {
  return {
    rank: num(r, 'rank'),
    path: str(r, 'path'),
    humanVisitorDays7d: num(r, 'human_visitor_days_7d'),
    aiVisitorDays7d: num(r, 'ai_visitor_days_7d'),
    totalVisitorDays7d: num(r, 'total_visitor_days_7d'),
    totalVisitorDaysPrev7d: numOrNull(r, 'total_visitor_days_prev_7d'),
    change: numOrNull(r, 'change'),
    changePct: numOrNull(r, 'change_pct'),
    aiShare7d: numOrNull(r, 'ai_share_7d'),
  };
}
