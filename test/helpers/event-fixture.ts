import { mulberry32 } from '../../src/emulator/prng.js';
import { addDays } from '../../src/util/day.js';
import { TRAFFIC_CLASSES, type TrafficClass } from '../../src/load/event-rows.js';

/*
 * A wild, hand-shaped set of analytics_events rows for the event views (sql/views/160_* onwards):
 * several projects and days, every traffic class, events without a visitor or a session, markdown
 * views by humans, the same visitors and sessions across days, events at the edges of a UTC day and
 * several at one instant (the search funnel's order at a tie). Deterministic for a seed; the rows
 * are inserted by `eventInsertSql`, whose text both destinations run.
 */

export interface FixtureEvent {
  readonly project_id: string;
  readonly event_id: string;
  readonly event_type: string | null;
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: sorts as the instant does. */
  readonly created_at: string;
  readonly day: string;
  readonly path: string | null;
  readonly referrer_host: string | null;
  readonly traffic_class: TrafficClass;
  readonly visitor_key: string | null;
  readonly session_id: string | null;
}

function weighted<T>(rnd: () => number, choices: readonly (readonly [T, number])[]): T {
  const total = choices.reduce((s, [, w]) => s + w, 0);
  let x = rnd() * total;
  for (const [v, w] of choices) {
    x -= w;
    if (x < 0) return v;
  }
  return (choices[choices.length - 1] as readonly [T, number])[0];
}

const TYPES: readonly (readonly [string | null, number])[] = [
  ['docs.content.view', 34],
  ['docs.content.md.view', 12],
  ['docs.search.query', 9],
  ['docs.search.result_click', 5],
  ['docs.search.close', 7],
  ['docs.assistant.enter', 5],
  ['docs.assistant.completed', 4],
  ['docs.assistant.source_click', 3],
  ['docs.context_menu.copy_page', 3],
  ['docs.context_menu.install_mcp_server', 2],
  ['docs.mcp.tool_call', 2],
  ['docs.navitem.click', 4],
  ['docs.brand_new.event', 1],
  [null, 1],
];

const CLASSES: readonly (readonly [TrafficClass, number])[] = [
  ['human', 50],
  ['ai_answers', 15],
  ['search_index', 12],
  ['training', 12],
  ['other_bot', 11],
];

const HOSTS: readonly (readonly [string | null, number])[] = [
  [null, 4],
  ['google.com', 3],
  ['github.com', 2],
  ['chatgpt.com', 1],
  ['news.ycombinator.com', 1],
];

/** A time of day: a few shared instants (ties), the day's first and last microsecond, or any. */
function timeOfDay(rnd: () => number): string {
  const r = rnd();
  if (r < 0.05) return '00:00:00.000000';
  if (r < 0.1) return '23:59:59.999999';
  if (r < 0.35)
    return ['08:00:00.000000', '12:30:00.000000', '12:30:00.000001'][Math.floor(rnd() * 3)] as string;
  const s = Math.floor(rnd() * 86_400);
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}.${String(Math.floor(rnd() * 1e6)).padStart(6, '0')}`;
}

/**
 * Events of `projects` over `days` days from `first`. A project's visitors come back on several
 * days, sometimes as another class (the same key as human and as ai_answers); about one in ten
 * events has no visitor and one in ten no session ('' counts as none). The last project's first
 * day holds only search events (a day with events and no page view).
 */
export function eventFixture(
  projects: readonly string[],
  first: string,
  days: number,
  seed = 29,
): FixtureEvent[] {
  // The emulator's generator: a failure names rows that stay the same.
  const rnd = mulberry32(seed);
  const out: FixtureEvent[] = [];
  projects.forEach((project, pi) => {
    for (let d = 0; d < days; d++) {
      const day = addDays(first, d);
      const searchOnly = pi === projects.length - 1 && d === 0;
      const n = 30 + Math.floor(rnd() * 60);
      for (let i = 0; i < n; i++) {
        let type = weighted(rnd, TYPES);
        if (searchOnly)
          type = ['docs.search.query', 'docs.search.close', 'docs.search.result_click'][i % 3] as string;
        const v = Math.floor(rnd() * 25);
        const noVisitor = rnd() < 0.1;
        const sr = rnd();
        const session = sr < 0.08 ? null : sr < 0.1 ? '' : `s-${v}-${Math.floor(rnd() * 3)}`;
        out.push({
          project_id: project,
          event_id: `${project}-${day}-${i}`,
          event_type: type,
          created_at: `${day}T${timeOfDay(rnd)}Z`,
          day,
          path: `/page-${Math.floor(rnd() * 6)}`,
          referrer_host: weighted(rnd, HOSTS),
          traffic_class: weighted(rnd, CLASSES),
          visitor_key: noVisitor ? null : `vk-${v}`,
          session_id: session,
        });
      }
    }
  });
  return [...out, ...searchEdges(projects[0] as string, first)];
}

/**
 * Search sequences at the rule's edges (v_event_search_daily), in one session each: a click and a
 * close at the same instant (the click counts first), a query and a close at the same instant (the
 * query first: no click since it), a close before any query, and a search over midnight (query and
 * click on one day, the close on the next).
 */
function searchEdges(project: string, first: string): FixtureEvent[] {
  const next = addDays(first, 1);
  const ev = (id: string, type: string, day: string, time: string, session: string): FixtureEvent => ({
    project_id: project,
    event_id: `edge-${id}`,
    event_type: `docs.search.${type}`,
    created_at: `${day}T${time}Z`,
    day,
    path: '/search',
    referrer_host: null,
    traffic_class: 'human',
    visitor_key: `vk-edge-${session}`,
    session_id: `edge-${session}`,
  });
  return [
    ev('1', 'query', first, '10:00:00.000000', 'tie-click'),
    ev('2', 'result_click', first, '10:00:05.000000', 'tie-click'),
    ev('3', 'close', first, '10:00:05.000000', 'tie-click'),
    ev('4', 'query', first, '11:00:00.000000', 'tie-query'),
    ev('5', 'result_click', first, '10:59:00.000000', 'tie-query'),
    ev('6', 'close', first, '11:00:00.000000', 'tie-query'),
    ev('7', 'close', first, '09:00:00.000000', 'no-query'),
    ev('8', 'result_click', first, '08:00:00.000000', 'click-first'),
    ev('9', 'close', first, '08:00:01.000000', 'click-first'),
    ev('10', 'query', first, '23:59:59.999999', 'midnight'),
    ev('11', 'result_click', first, '23:59:59.999999', 'midnight'),
    ev('12', 'close', next, '00:00:00.000000', 'midnight'),
  ];
}

function lit(v: string | null): string {
  return v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`;
}

/** INSERT statements (in chunks) both destinations run, for `rows`. */
export function eventInsertSql(rows: readonly FixtureEvent[], chunk = 500): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk) {
    const values = rows
      .slice(i, i + chunk)
      .map(
        (r) =>
          `(${lit(r.project_id)}, ${lit(r.event_id)}, ${lit(r.event_type)}, 'docs', ` +
          `TIMESTAMPTZ '${r.created_at.replace('T', ' ').replace('Z', '+00')}', DATE '${r.day}', ${lit(r.path)}, ` +
          `${r.referrer_host === null ? 'NULL' : lit(`https://${r.referrer_host}/x`)}, ${lit(r.referrer_host)}, ` +
          `${lit(r.traffic_class)}, ${lit(r.visitor_key)}, NULL, ${lit(r.session_id)}, NULL, 'ua', NULL, ` +
          `'events/${r.day}.jsonl', 'fixture', TIMESTAMPTZ '2026-12-01 00:00:00+00')`,
      );
    out.push(
      `INSERT INTO analytics_events (project_id, event_id, event_type, subdomain, created_at, day, path, referrer,
         referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties,
         object_key, run_id, loaded_at)
       VALUES ${values.join(',\n')}`,
    );
  }
  return out;
}

export { TRAFFIC_CLASSES };
