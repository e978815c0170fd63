import { hasRelations } from '../load/relations.js';
import type { Row, SqlSession } from '../load/session.js';
import { TRAFFIC_CLASSES, type TrafficClass } from '../load/event-rows.js';
import { addDays, daysBetween, type Day } from '../util/day.js';

/**
 * What the report and the digest say about the event stream (sync --events): true unique visitors
 * of periods (event_visitors, not sums of daily uniques), page views per traffic class, referrer
 * hosts and the search and assistant funnels, read from the event views (sql/views/160_* on).
 * Nothing is read, and nothing shown, when the destination has no event tables (an older
 * database) or the project has no events.
 */

/** True uniques of the days [from, to] (to inclusive): each visitor counted once in the period. */
export interface EventVisitorsPeriod {
  readonly from: Day;
  readonly to: Day;
  readonly days: number;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
}

export interface TrafficShare {
  readonly trafficClass: TrafficClass;
  /** Page views (docs.content.view, docs.content.md.view) of the class. */
  readonly views: number;
  /** views / page views of every class, 0..1; null without page views. */
  readonly share: number | null;
}

export interface ReferrerHost {
  /** The referrer URL's host (lower case, no www.), as readers' browsers sent it: escape it. */
  readonly host: string;
  readonly views: number;
  readonly humanViews: number;
}

export interface EventStreamSection {
  /** The last 7 days, then the longer period (the report's --days, or 28 for the digest). */
  readonly visitors: readonly EventVisitorsPeriod[];
  /** The days [from, to] (inclusive) of the traffic, referrers and funnels. */
  readonly from: Day;
  readonly to: Day;
  /**
   * The project's first day of events, when it falls inside the longest period: every period
   * starts there instead (a period of days before the stream began would read as quiet days).
   */
  readonly startsOn?: Day;
  /** Every class, in TRAFFIC_CLASSES order, zeros included. */
  readonly traffic: readonly TrafficShare[];
  readonly pageViews: number;
  /** Hosts with the most page views; direct views (no referrer host) are not a host. */
  readonly referrers: readonly ReferrerHost[];
  readonly search: {
    readonly queries: number;
    readonly resultClicks: number;
    readonly closedWithoutClick: number;
  };
  readonly assistant: {
    readonly entered: number;
    readonly completed: number;
    readonly sourceClicked: number;
  };
}

export interface EventStreamWindow {
  readonly projectId: string;
  /** The last day (inclusive) of every period. */
  readonly to: Day;
  /** Days of the longer visitors period and of the breakdowns (28 in the digest, --days in the report). */
  readonly days: number;
  /** Days of the breakdowns when they differ from `days` (the digest's week: 7). */
  readonly breakdownDays?: number;
  readonly topReferrers: number;
}

const EVENT_RELATIONS = ['analytics_events', 'v_event_traffic_daily', 'v_event_referrers_daily'];

function n(row: Row | undefined, col: string): number {
  const v = row?.[col];
  return v === null || v === undefined ? 0 : Number(v);
}

/** Whether the project has events, in a destination that has the event tables and views. */
export async function hasEvents(session: SqlSession, projectId: string): Promise<boolean> {
  if (!(await hasRelations(session, EVENT_RELATIONS))) return false;
  const [e] = await session.rows(
    'SELECT count(*) AS n FROM (SELECT 1 FROM analytics_events WHERE project_id = $1::VARCHAR LIMIT 1) x',
    [projectId],
  );
  return n(e, 'n') > 0;
}

/** A project with events loaded, and its last day with events (UTC). */
export interface EventProject {
  readonly projectId: string;
  readonly lastDay: Day;
}

/** Every project with events loaded, in code-point order; none before the event stream's tables. */
export async function eventProjects(session: SqlSession): Promise<EventProject[]> {
  if (!(await hasRelations(session, EVENT_RELATIONS))) return [];
  const rows = await session.rows(
    `SELECT project_id, max(day) AS last_day FROM analytics_events GROUP BY project_id
      ORDER BY ${session.sql.codePoint('project_id')}`,
  );
  return rows.map((r) => ({ projectId: String(r['project_id']), lastDay: String(r['last_day']) }));
}

/** The event stream's section for the days up to `w.to`, or undefined without events. */
export async function readEventStream(
  session: SqlSession,
  w: EventStreamWindow,
): Promise<EventStreamSection | undefined> {
  if (!(await hasEvents(session, w.projectId))) return undefined;
  const first = await firstEventDay(session, w.projectId);
  const startsOn = first > addDays(w.to, -(Math.max(7, w.days) - 1)) && first <= w.to ? first : undefined;
  const lengths = [...new Set([7, w.days])];
  const visitors: EventVisitorsPeriod[] = [];
  for (const days of lengths) visitors.push(await periodVisitors(session, w.projectId, w.to, days, startsOn));
  const from = later(addDays(w.to, -((w.breakdownDays ?? w.days) - 1)), startsOn);
  const range = [w.projectId, from, addDays(w.to, 1)];
  const { traffic, pageViews } = await trafficShares(session, range);
  return {
    visitors,
    from,
    to: w.to,
    ...(startsOn !== undefined ? { startsOn } : {}),
    traffic,
    pageViews,
    referrers: await topReferrers(session, range, w.topReferrers),
    ...(await funnels(session, range)),
  };
}

async function periodVisitors(
  session: SqlSession,
  projectId: string,
  to: Day,
  days: number,
  startsOn: Day | undefined,
): Promise<EventVisitorsPeriod> {
  const from = later(addDays(to, -(days - 1)), startsOn);
  const [r] = await session.rows(
    'SELECT human, ai, total FROM event_visitors($1::DATE, $2::DATE) WHERE project_id = $3::VARCHAR',
    [from, addDays(to, 1), projectId],
  );
  const held = daysBetween(from, to) + 1;
  return { from, to, days: held, human: n(r, 'human'), ai: n(r, 'ai'), total: n(r, 'total') };
}

/** The later of two days (ISO days sort as text). */
function later(day: Day, other: Day | undefined): Day {
  return other !== undefined && other > day ? other : day;
}

async function firstEventDay(session: SqlSession, projectId: string): Promise<Day> {
  const [r] = await session.rows(
    'SELECT CAST(min(day) AS VARCHAR) AS d FROM analytics_events WHERE project_id = $1::VARCHAR',
    [projectId],
  );
  return String(r?.['d']);
}

/** `range`: project, first day, day after the last. */
const IN_RANGE = 'project_id = $1::VARCHAR AND day >= $2::DATE AND day < $3::DATE';

async function trafficShares(
  session: SqlSession,
  range: readonly string[],
): Promise<{ traffic: TrafficShare[]; pageViews: number }> {
  const rows = await session.rows(
    `SELECT traffic_class, sum(views) AS views FROM v_event_traffic_daily WHERE ${IN_RANGE} GROUP BY traffic_class`,
    range,
  );
  const views = new Map(rows.map((r) => [String(r['traffic_class']), n(r, 'views')]));
  const pageViews = [...views.values()].reduce((a, b) => a + b, 0);
  const traffic = TRAFFIC_CLASSES.map((c) => {
    const v = views.get(c) ?? 0;
    return { trafficClass: c, views: v, share: pageViews > 0 ? v / pageViews : null };
  });
  return { traffic, pageViews };
}

async function topReferrers(
  session: SqlSession,
  range: readonly string[],
  limit: number,
): Promise<ReferrerHost[]> {
  const rows = await session.rows(
    `SELECT referrer_host AS host, sum(views) AS views, sum(human_views) AS human_views
       FROM v_event_referrers_daily WHERE ${IN_RANGE} AND referrer_host IS NOT NULL
      GROUP BY referrer_host ORDER BY views DESC, ${session.sql.codePoint('referrer_host')} LIMIT ${Math.max(0, Math.floor(limit))}`,
    range,
  );
  return rows.map((r) => ({
    host: String(r['host']),
    views: n(r, 'views'),
    humanViews: n(r, 'human_views'),
  }));
}

async function funnels(
  session: SqlSession,
  range: readonly string[],
): Promise<Pick<EventStreamSection, 'search' | 'assistant'>> {
  const [s] = await session.rows(
    `SELECT sum(queries) AS queries, sum(result_clicks) AS clicks, sum(closed_without_click) AS closed
       FROM v_event_search_daily WHERE ${IN_RANGE}`,
    range,
  );
  const [a] = await session.rows(
    `SELECT sum(entered) AS entered, sum(completed) AS completed, sum(source_clicked) AS clicked
       FROM v_event_assistant_daily WHERE ${IN_RANGE}`,
    range,
  );
  return {
    search: { queries: n(s, 'queries'), resultClicks: n(s, 'clicks'), closedWithoutClick: n(s, 'closed') },
    assistant: { entered: n(a, 'entered'), completed: n(a, 'completed'), sourceClicked: n(a, 'clicked') },
  };
}
