import type { Canonical } from './canonical-rows.js';
import { TRAFFIC_CLASSES, type FixtureEvent } from './event-fixture.js';

/*
 * The rows each event view should give for a set of events, computed in TypeScript from the
 * definitions (the header comments of sql/views/160_* onwards), in the canonical form of
 * canonical-rows.ts (integers as decimal strings, doubles rounded at 1e-9), sorted as it sorts.
 */

const PAGE_VIEWS = new Set(['docs.content.view', 'docs.content.md.view']);

function int(n: number): string {
  return String(n);
}

function ratio(a: number, b: number): string | null {
  return b === 0 ? null : String(Math.round((a / b) * 1e9) / 1e9);
}

function sorted(rows: Canonical[][]): Canonical[][] {
  return rows
    .map((r) => [JSON.stringify(r), r] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r);
}

/** Rows grouped by a key made of their values. */
function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

function distinct(rows: readonly FixtureEvent[], keep: (r: FixtureEvent) => boolean): number {
  return new Set(rows.filter((r) => keep(r) && r.visitor_key !== null).map((r) => r.visitor_key)).size;
}

const isHuman = (r: FixtureEvent): boolean =>
  r.event_type === 'docs.content.view' && r.traffic_class === 'human';
const isAi = (r: FixtureEvent): boolean =>
  (PAGE_VIEWS.has(r.event_type ?? '') && r.traffic_class === 'ai_answers') ||
  (r.event_type === 'docs.content.md.view' && r.traffic_class === 'human');

/** human, ai, total: the dashboard's distinct visitors of `rows`. */
function visitorCounts(rows: readonly FixtureEvent[]): [number, number, number] {
  return [distinct(rows, isHuman), distinct(rows, isAi), distinct(rows, (r) => isHuman(r) || isAi(r))];
}

const dayKey = (r: FixtureEvent): string => `${r.project_id}|${r.day}`;

export function visitorsDaily(events: readonly FixtureEvent[]): Canonical[][] {
  return sorted(
    [...groupBy(events, dayKey)].map(([k, rows]) => [...k.split('|'), ...visitorCounts(rows).map(int)]),
  );
}

/** event_visitors(from, to): the same over [from, to), per project with events in it. */
export function visitorsOfPeriod(events: readonly FixtureEvent[], from: string, to: string): Canonical[][] {
  const inRange = events.filter((r) => r.day >= from && r.day < to);
  return sorted(
    [...groupBy(inRange, (r) => r.project_id)].map(([p, rows]) => [p, ...visitorCounts(rows).map(int)]),
  );
}

export function trafficDaily(events: readonly FixtureEvent[]): Canonical[][] {
  return sorted(
    [...groupBy(events, dayKey)].flatMap(([k, rows]) =>
      TRAFFIC_CLASSES.map((c) => {
        const views = rows.filter((r) => PAGE_VIEWS.has(r.event_type ?? '') && r.traffic_class === c);
        return [...k.split('|'), c, int(views.length), int(distinct(views, () => true))];
      }),
    ),
  );
}

export function referrersDaily(events: readonly FixtureEvent[]): Canonical[][] {
  const views = events.filter((r) => PAGE_VIEWS.has(r.event_type ?? ''));
  return sorted(
    [...groupBy(views, (r) => JSON.stringify([r.project_id, r.day, r.referrer_host]))].map(([k, rows]) => {
      const humans = rows.filter((r) => r.traffic_class === 'human');
      return [
        ...(JSON.parse(k) as Canonical[]),
        int(rows.length),
        int(distinct(rows, () => true)),
        int(humans.length),
        int(distinct(humans, () => true)),
      ];
    }),
  );
}

export function sessionsDaily(events: readonly FixtureEvent[]): Canonical[][] {
  const views = events.filter((r) => PAGE_VIEWS.has(r.event_type ?? '') && (r.session_id ?? '') !== '');
  const sessions = [...groupBy(views, (r) => `${r.project_id}|${r.session_id}`).values()].map((rows) => ({
    project_id: (rows[0] as FixtureEvent).project_id,
    day: rows.map((r) => r.day).sort()[0] as string,
    views: rows.length,
  }));
  return sorted(
    [...groupBy(sessions, (s) => `${s.project_id}|${s.day}`)].map(([k, ss]) => {
      const pv = ss.reduce((n, s) => n + s.views, 0);
      const single = ss.filter((s) => s.views === 1).length;
      return [
        ...k.split('|'),
        int(ss.length),
        int(pv),
        ratio(pv, ss.length),
        int(single),
        ratio(single, ss.length),
      ];
    }),
  );
}

const STEP: Record<string, number> = {
  'docs.search.query': 0,
  'docs.search.result_click': 1,
  'docs.search.close': 2,
};

/** Event ids of the closes without a click: per session, in time order (query, click, close at a tie). */
export function closesWithoutClick(search: readonly FixtureEvent[]): Set<string> {
  const out = new Set<string>();
  const withSession = search.filter((r) => (r.session_id ?? '') !== '');
  for (const rows of groupBy(withSession, (r) => `${r.project_id}|${r.session_id}`).values()) {
    const ordered = [...rows].sort((a, b) =>
      a.created_at !== b.created_at
        ? a.created_at < b.created_at
          ? -1
          : 1
        : (STEP[a.event_type ?? ''] ?? 0) - (STEP[b.event_type ?? ''] ?? 0),
    );
    let clicks = 0;
    for (const r of ordered) {
      if (r.event_type === 'docs.search.query') clicks = 0;
      else if (r.event_type === 'docs.search.result_click') clicks++;
      else if (clicks === 0) out.add(r.event_id);
    }
  }
  return out;
}

export function searchDaily(events: readonly FixtureEvent[]): Canonical[][] {
  const search = events.filter((r) => (r.event_type ?? '') in STEP);
  const noClick = closesWithoutClick(search);
  return sorted(
    [...groupBy(search, dayKey)].map(([k, rows]) => {
      const of = (t: string): FixtureEvent[] => rows.filter((r) => r.event_type === t);
      const queries = of('docs.search.query');
      const clicks = of('docs.search.result_click');
      const closes = of('docs.search.close');
      return [
        ...k.split('|'),
        int(queries.length),
        int(distinct(queries, () => true)),
        int(clicks.length),
        int(closes.length),
        int(closes.filter((r) => noClick.has(r.event_id)).length),
        ratio(clicks.length, queries.length),
      ];
    }),
  );
}

const ASSISTANT = ['docs.assistant.enter', 'docs.assistant.completed', 'docs.assistant.source_click'];

export function assistantDaily(events: readonly FixtureEvent[]): Canonical[][] {
  const rows = events.filter((r) => ASSISTANT.includes(r.event_type ?? ''));
  return sorted(
    [...groupBy(rows, dayKey)].map(([k, day]) => {
      const [enter, done, source] = ASSISTANT.map((t) => day.filter((r) => r.event_type === t));
      const e = enter as FixtureEvent[];
      const c = done as FixtureEvent[];
      const s = source as FixtureEvent[];
      return [
        ...k.split('|'),
        int(e.length),
        int(c.length),
        int(s.length),
        int(distinct(e, () => true)),
        int(distinct(c, () => true)),
        int(distinct(s, () => true)),
        ratio(c.length, e.length),
        ratio(s.length, c.length),
      ];
    }),
  );
}

export function actionsDaily(events: readonly FixtureEvent[]): Canonical[][] {
  const menu = (t: string): boolean => t.startsWith('docs.context_menu.');
  const rows = events.filter(
    (r) => r.event_type !== null && (menu(r.event_type) || r.event_type.includes('mcp')),
  );
  return sorted(
    [...groupBy(rows, (r) => JSON.stringify([r.project_id, r.day, r.event_type]))].map(([k, rs]) => {
      const [p, d, t] = JSON.parse(k) as [string, string, string];
      return [p, d, menu(t) ? 'context_menu' : 'mcp', t, int(rs.length), int(distinct(rs, () => true))];
    }),
  );
}

export interface SiteDay {
  readonly project_id: string;
  readonly day: string;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
  readonly partial: boolean;
}

export function versusApiDaily(events: readonly FixtureEvent[], site: readonly SiteDay[]): Canonical[][] {
  const byDay = groupBy(events, dayKey);
  return sorted(
    site.flatMap((s) => {
      const rows = byDay.get(`${s.project_id}|${s.day}`);
      if (rows === undefined) return [];
      const [h, a, t] = visitorCounts(rows);
      return [
        [
          s.project_id,
          s.day,
          int(h),
          int(a),
          int(t),
          int(s.human),
          int(s.ai),
          int(s.total),
          String(s.partial),
          ratio(h, s.human),
          ratio(a, s.ai),
          ratio(t, s.total),
        ],
      ];
    }),
  );
}
