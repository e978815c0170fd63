import { expect } from 'vitest';
import type { EventStream } from '../../src/emulator/events/index.js';
import type { Place } from '../../src/load/destination.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { tempDbPath } from './db.js';
import { hasPostgres, startPostgres, type PostgresServer } from './postgres.js';
import type { SqlSession } from '../../src/load/session.js';

/** The sync --json summary's event part. */
export interface EventsJson {
  listed: number;
  loaded: number;
  skipped: number;
  failed: number;
  lines: number;
  events: number;
  newEvents: number;
  rejected: number;
  unmapped: number;
  listRequests: number;
  getRequests: number;
}

/** `2026-11-20 23:30:00.1234` (a UTC timestamp's text, trailing zeros dropped or not) as `...T23:30:00.123400Z`. */
function micros(text: string): string {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?/.exec(text);
  if (!m) throw new Error(`not a timestamp: ${text}`);
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`;
}

/**
 * Every stored event against the emulator's truth: each distinct event once with every field as
 * sent (microseconds, properties, the first object holding it), and visitor keys that tell the same
 * visitors apart as the truth's raw (anon_id | ip + user agent) do.
 */
export async function expectEventsExact(
  s: SqlSession,
  stream: EventStream,
  project: string,
  /** The source's prefix: keys are stored relative to it. */
  prefix = '',
  /** Only this deployment's events (--events-project). */
  subdomain?: string,
): Promise<void> {
  const rows = await s.rows(
    `SELECT event_id, event_type, subdomain, CAST(timezone('UTC', created_at) AS VARCHAR) AS created_us, day, path,
  referrer, referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties, object_key
FROM analytics_events WHERE project_id = $1 ORDER BY event_id COLLATE "C"`,
    [project],
  );
  const truth = stream.truth.events
    .filter((e) => subdomain === undefined || e.subdomain === subdomain)
    .sort((a, b) => (a.event_id < b.event_id ? -1 : 1));
  expect(rows.length).toBe(truth.length);
  const visitorOfKey = new Map<string, string | null>();
  const keyOfVisitor = new Map<string, string | null>();
  rows.forEach((r, i) => {
    const t = truth[i]!;
    // DuckDB hands a JSON column over as its text, PostgreSQL's jsonb as the value.
    const properties =
      typeof r['properties'] === 'string' ? (JSON.parse(r['properties']) as unknown) : r['properties'];
    expect({ ...r, properties, created_us: micros(String(r['created_us'])), visitor_key: undefined }).toEqual(
      {
        event_id: t.event_id,
        event_type: t.event_type,
        subdomain: t.subdomain,
        created_us: t.created_at,
        day: t.day,
        path: t.path,
        referrer: t.referrer,
        referrer_host: t.referrer_host,
        traffic_class: t.traffic_class,
        visitor_key: undefined,
        anon_id: t.anon_id,
        session_id: t.session_id,
        user_id: t.user_id,
        user_agent: t.user_agent,
        properties: t.properties === undefined ? null : t.properties,
        object_key: t.object_key.slice(prefix.length),
      },
    );
    const key = (r['visitor_key'] as string | null) ?? 'none';
    const visitor = t.visitor ?? 'none';
    expect(key === 'none').toBe(visitor === 'none');
    if (visitorOfKey.has(key)) expect(visitorOfKey.get(key)).toBe(visitor);
    if (keyOfVisitor.has(visitor)) expect(keyOfVisitor.get(visitor)).toBe(key);
    visitorOfKey.set(key, visitor);
    keyOfVisitor.set(visitor, key);
  });
}

/** The views' visitors and classes against the truth: daily, any period, every class. */
export async function expectEventViewsExact(
  s: SqlSession,
  stream: EventStream,
  project: string,
): Promise<void> {
  const daily = await s.rows(
    'SELECT day, human, ai, total FROM v_event_visitors_daily WHERE project_id = $1 ORDER BY day',
    [project],
  );
  const want = stream.truth.visitorsDaily();
  expect(
    Object.fromEntries(daily.map((r) => [r['day'], { human: r['human'], ai: r['ai'], total: r['total'] }])),
  ).toEqual(want);
  const days = stream.truth.days;
  const ranges: [string, string][] = [
    [days[0]!, days.at(-1)!],
    [days[2]!, days[9]!],
    [days[0]!, days[0]!],
  ];
  for (const [from, to] of ranges) {
    const got = await s.rows(
      'SELECT human, ai, total FROM event_visitors(CAST($1 AS DATE), CAST($2 AS DATE)) WHERE project_id = $3',
      [from, to, project],
    );
    const t = stream.truth.visitorsBetween(from, to);
    expect(got[0] ?? { human: 0, ai: 0, total: 0 }, `event_visitors(${from}, ${to})`).toEqual({ ...t });
  }
  const traffic = await s.rows(
    'SELECT day, traffic_class, views, visitors FROM v_event_traffic_daily WHERE project_id = $1',
    [project],
  );
  const byDay: Record<string, Record<string, { views: unknown; visitors: unknown }>> = {};
  for (const r of traffic)
    (byDay[String(r['day'])] ??= {})[String(r['traffic_class'])] = {
      views: r['views'],
      visitors: r['visitors'],
    };
  expect(byDay).toEqual(stream.truth.trafficDaily());
}

/** The ledger against the truth: per object its lines, events, new events and rejected lines. */
export async function expectLedgerExact(
  s: SqlSession,
  stream: EventStream,
  project: string,
  prefix = '',
): Promise<void> {
  const rows = await s.rows(
    'SELECT object_key, lines, events, new_events, rejected FROM event_objects WHERE project_id = $1',
    [project],
  );
  const t = stream.truth;
  expect(Object.fromEntries(rows.map((r) => [r['object_key'], r]))).toEqual(
    Object.fromEntries(
      t.keys.map((k) => [
        k.slice(prefix.length),
        {
          object_key: k.slice(prefix.length),
          lines: t.linesByObject[k],
          events: t.eventLinesByObject[k],
          new_events: t.newEventsByObject[k],
          rejected: t.rejectedByObject[k],
        },
      ]),
    ),
  );
}

/** Opens the place to read, runs `fn`, closes. */
export async function reading<T>(place: Place, fn: (s: SqlSession) => Promise<T>): Promise<T> {
  const dest = await place.open('read');
  try {
    return await fn(dest.session);
  } finally {
    await dest.close();
  }
}

/** Where a test syncs: the CLI's --db flags and the same place to read back. */
export interface SyncTarget {
  readonly args: string[];
  readonly place: Place;
}

/**
 * A fresh DuckDB file, and a fresh schema of one PostgreSQL server per test file (started on first
 * use) when PostgreSQL is here; `stop` ends the server.
 */
export function eventTargets(): {
  targets: [string, () => Promise<SyncTarget>][];
  stop: () => Promise<void>;
} {
  let server: PostgresServer | undefined;
  const targets: [string, () => Promise<SyncTarget>][] = [
    [
      'DuckDB',
      () => {
        const db = tempDbPath();
        return Promise.resolve({ args: ['--db', db], place: placeOf(parseDbTarget(db)) });
      },
    ],
  ];
  if (hasPostgres())
    targets.push([
      'PostgreSQL',
      async () => {
        server ??= await startPostgres();
        const schema = `events_${Math.random().toString(36).slice(2, 8)}`;
        return {
          args: ['--db', server.url, '--schema', schema],
          place: placeOf({ ...parseDbTarget(server.url), schema } as ReturnType<typeof parseDbTarget>),
        };
      },
    ]);
  return { targets, stop: async () => await server?.stop() };
}
