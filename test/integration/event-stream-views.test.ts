import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { addDays } from '../../src/util/day.js';
import {
  duckCanonical,
  pgCanonical,
  typeMismatches,
  type CanonicalResult,
} from '../helpers/canonical-rows.js';
import { tempDbPath } from '../helpers/db.js';
import { eventFixture, eventInsertSql, type FixtureEvent } from '../helpers/event-fixture.js';
import {
  actionsDaily,
  assistantDaily,
  closesWithoutClick,
  referrersDaily,
  searchDaily,
  sessionsDaily,
  trafficDaily,
  versusApiDaily,
  visitorsDaily,
  visitorsOfPeriod,
  type SiteDay,
} from '../helpers/event-truth.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * The views over analytics_events (sql/views/160_* onwards) and event_visitors(from_day, to_day),
 * against rows computed in TypeScript from their definitions, on a DuckDB file and a PostgreSQL
 * schema holding the same events, read in UTC and in Pacific/Chatham (+13:45: a session zone that
 * would move most instants to another day).
 */

const FIRST = '2026-03-01';
const DAYS = 12;
const PROJECTS = ['ev-a', 'ev-b', 'ev-c'];
const EVENTS: FixtureEvent[] = eventFixture(PROJECTS, FIRST, DAYS);

/** The API's site_daily: days with events, one without, zeros (ratios NULL) and a partial day. */
const SITE: SiteDay[] = [
  { project_id: 'ev-a', day: addDays(FIRST, 0), human: 20, ai: 5, total: 24, partial: false },
  { project_id: 'ev-a', day: addDays(FIRST, 1), human: 0, ai: 0, total: 0, partial: false },
  { project_id: 'ev-a', day: addDays(FIRST, DAYS), human: 9, ai: 9, total: 9, partial: false },
  { project_id: 'ev-b', day: addDays(FIRST, 4), human: 13, ai: 2, total: 14, partial: true },
  { project_id: 'ev-c', day: addDays(FIRST, 0), human: 3, ai: 1, total: 4, partial: false },
  { project_id: 'ev-c', day: addDays(FIRST, 8), human: 30, ai: 0, total: 30, partial: false },
  { project_id: 'other', day: addDays(FIRST, 2), human: 1, ai: 1, total: 1, partial: false },
];

function siteSql(): string {
  const values = SITE.map(
    (s) =>
      `('${s.project_id}', DATE '${s.day}', ${s.human}, ${s.ai}, ${s.total}, ${s.partial}, TIMESTAMPTZ '2026-12-01 00:00:00+00', 'fixture')`,
  );
  return `INSERT INTO site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id) VALUES ${values.join(', ')}`;
}

interface Case {
  readonly sql: string;
  readonly columns: string[];
  readonly rows: () => unknown[][];
}

const CASES: Record<string, Case> = {
  v_event_visitors_daily: {
    sql: 'SELECT * FROM v_event_visitors_daily',
    columns: ['project_id', 'day', 'human', 'ai', 'total'],
    rows: () => visitorsDaily(EVENTS),
  },
  v_event_traffic_daily: {
    sql: 'SELECT * FROM v_event_traffic_daily',
    columns: ['project_id', 'day', 'traffic_class', 'views', 'visitors'],
    rows: () => trafficDaily(EVENTS),
  },
  v_event_referrers_daily: {
    sql: 'SELECT * FROM v_event_referrers_daily',
    columns: ['project_id', 'day', 'referrer_host', 'views', 'visitors', 'human_views', 'human_visitors'],
    rows: () => referrersDaily(EVENTS),
  },
  v_event_sessions_daily: {
    sql: 'SELECT * FROM v_event_sessions_daily',
    columns: [
      'project_id',
      'day',
      'sessions',
      'page_views',
      'pages_per_session',
      'single_page_sessions',
      'single_page_share',
    ],
    rows: () => sessionsDaily(EVENTS),
  },
  v_event_search_daily: {
    sql: 'SELECT * FROM v_event_search_daily',
    columns: [
      'project_id',
      'day',
      'queries',
      'searchers',
      'result_clicks',
      'closes',
      'closed_without_click',
      'click_through',
    ],
    rows: () => searchDaily(EVENTS),
  },
  v_event_assistant_daily: {
    sql: 'SELECT * FROM v_event_assistant_daily',
    columns: [
      'project_id',
      'day',
      'entered',
      'completed',
      'source_clicked',
      'entered_visitors',
      'completed_visitors',
      'source_clicked_visitors',
      'completion_rate',
      'source_click_rate',
    ],
    rows: () => assistantDaily(EVENTS),
  },
  v_event_actions_daily: {
    sql: 'SELECT * FROM v_event_actions_daily',
    columns: ['project_id', 'day', 'kind', 'event_type', 'events', 'visitors'],
    rows: () => actionsDaily(EVENTS),
  },
  v_event_vs_api_daily: {
    sql: 'SELECT * FROM v_event_vs_api_daily',
    columns: [
      'project_id',
      'day',
      'event_human',
      'event_ai',
      'event_total',
      'api_human',
      'api_ai',
      'api_total',
      'api_partial',
      'human_ratio',
      'ai_ratio',
      'total_ratio',
    ],
    rows: () => versusApiDaily(EVENTS, SITE),
  },
};

/** [from, to) ranges for event_visitors: the whole fixture, a middle stretch, one day, none, beyond. */
const PERIODS: [string, string][] = [
  [FIRST, addDays(FIRST, DAYS)],
  [addDays(FIRST, 2), addDays(FIRST, 6)],
  [addDays(FIRST, 3), addDays(FIRST, 4)],
  [addDays(FIRST, 5), addDays(FIRST, 5)],
  [addDays(FIRST, -30), addDays(FIRST, 1)],
];

for (const [from, to] of PERIODS) {
  const sql = `SELECT * FROM event_visitors(DATE '${from}', DATE '${to}')`;
  CASES[sql] = {
    sql,
    columns: ['project_id', 'human', 'ai', 'total'],
    rows: () => visitorsOfPeriod(EVENTS, from, to),
  };
}

const ZONES = ['UTC', 'Pacific/Chatham'] as const;

describe.skipIf(!hasPostgres())('the event views on DuckDB and PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let db: Database | undefined;

  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await migratePostgres(client, { schema: 'events' });
    db = await openDatabase(tempDbPath());
    for (const sql of [...eventInsertSql(EVENTS), siteSql()]) {
      await db.connection.run(sql);
      await client.query(sql);
    }
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await server?.stop();
  });

  async function read(dest: 'duckdb' | 'postgres', zone: string, sql: string): Promise<CanonicalResult> {
    if (dest === 'duckdb') {
      await db!.connection.run(`SET TimeZone = '${zone}'`);
      return duckCanonical(db!.connection, sql);
    }
    await client.query(`SET TimeZone TO '${zone}'`);
    return pgCanonical(client, sql);
  }

  it('holds a fixture wild enough to tell the definitions apart', () => {
    const daily = visitorsDaily(EVENTS);
    const sum = (col: number): number => daily.reduce((n, r) => n + Number(r[col]), 0);
    const period = visitorsOfPeriod(EVENTS, FIRST, addDays(FIRST, DAYS));
    const whole = (col: number): number => period.reduce((n, r) => n + Number(r[col]), 0);
    // True uniques of the period are fewer than the sum of the days' uniques, for every count.
    for (const col of [2, 3, 4]) expect(whole(col - 1)).toBeLessThan(sum(col));
    // A visitor both human and ai on one day: total below human + ai somewhere.
    expect(daily.some((r) => Number(r[4]) < Number(r[2]) + Number(r[3]))).toBe(true);
    // Markdown views by humans, events without a visitor, a day with events but no page view.
    expect(EVENTS.some((e) => e.event_type === 'docs.content.md.view' && e.traffic_class === 'human')).toBe(
      true,
    );
    expect(EVENTS.some((e) => e.visitor_key === null)).toBe(true);
    expect(daily.some((r) => r[4] === '0')).toBe(true);
    // Searches closed both with and without a click; sessions over several days.
    const search = searchDaily(EVENTS);
    expect(search.some((r) => Number(r[6]) > 0 && Number(r[6]) < Number(r[5]))).toBe(true);
    expect(versusApiDaily(EVENTS, SITE).some((r) => r[9] === null)).toBe(true);
  });

  it('counts a close as without a click only when its session clicked nothing since its latest query', () => {
    const edges = EVENTS.filter(
      (e) => e.event_id.startsWith('edge-') && e.event_type === 'docs.search.close',
    );
    const without = closesWithoutClick(EVENTS);
    // tie-click: click and close at one instant; tie-query: a new query at the close's instant;
    // no-query: a close before any query; click-first: a click before any query; midnight: a search
    // over midnight.
    expect(Object.fromEntries(edges.map((e) => [e.session_id, without.has(e.event_id)]))).toEqual({
      'edge-tie-click': false,
      'edge-tie-query': true,
      'edge-no-query': true,
      'edge-click-first': false,
      'edge-midnight': false,
    });
  });

  for (const zone of ZONES) {
    for (const dest of ['duckdb', 'postgres'] as const) {
      it.each(Object.keys(CASES))(
        `%s gives the rows of its definition on ${dest}, read in ${zone}`,
        async (name) => {
          const c = CASES[name]!;
          const got = await read(dest, zone, c.sql);
          expect(got.columns).toEqual(c.columns);
          expect(got.rows).toEqual(c.rows());
        },
      );
    }
  }

  it.each(Object.keys(CASES))('%s has the same types on both destinations', async (name) => {
    const c = CASES[name]!;
    const duck = await read('duckdb', 'UTC', c.sql);
    const post = await read('postgres', 'UTC', c.sql);
    expect(typeMismatches(duck, post)).toEqual([]);
  });
});
