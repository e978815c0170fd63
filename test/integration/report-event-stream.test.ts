import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDigest } from '../../src/insights/digest.js';
import { readEventStream, type EventStreamSection } from '../../src/insights/event-stream.js';
import { digestHtml } from '../../src/report/digest-html.js';
import { digestMarkdown } from '../../src/report/digest-markdown.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { insertEventsSql, SECTION_EVENTS, type EventFixtureRow } from '../helpers/analytics-events-rows.js';
import { gatherReport } from '../../src/report/data.js';
import { renderHtml } from '../../src/report/html.js';
import type { ReportData } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { addDays } from '../../src/util/day.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { buildReportFixture, FIXTURE_LAST_DAY, FIXTURE_PROJECT } from '../helpers/report-fixture.js';
import { hasPostgres } from '../helpers/postgres.js';
import { pgSchemaWith } from '../helpers/pg-schema.js';

/*
 * The report's and digest's event-stream section, read from the event views on both destinations,
 * against numbers worked out by hand from a few events. Period of 28 days to 2026-03-28
 * (2026-03-01..28), the last 7 days 2026-03-22..28.
 */

/** Worked out by hand from SECTION_EVENTS. */
export const EXPECTED_SECTION: EventStreamSection = {
  visitors: [
    // A and B viewed as humans, C as ai_answers (the null visitor is nobody).
    { from: '2026-03-22', to: '2026-03-28', days: 7, human: 2, ai: 1, total: 3 },
    // human A, B, D; ai C and D (an .md view of a human); 4 people, where daily uniques add up to 5 human.
    { from: '2026-03-01', to: '2026-03-28', days: 28, human: 3, ai: 2, total: 4 },
  ],
  from: '2026-03-01',
  to: '2026-03-28',
  traffic: [
    { trafficClass: 'human', views: 7, share: 0.7 },
    { trafficClass: 'ai_answers', views: 1, share: 0.1 },
    { trafficClass: 'search_index', views: 1, share: 0.1 },
    { trafficClass: 'training', views: 1, share: 0.1 },
    { trafficClass: 'other_bot', views: 0, share: 0 },
  ],
  pageViews: 10,
  referrers: [
    { host: 'google.com', views: 2, humanViews: 2 },
    { host: 'bing.com', views: 1, humanViews: 0 },
    { host: 'github.com', views: 1, humanViews: 1 },
  ],
  search: { queries: 3, resultClicks: 1, closedWithoutClick: 1 },
  assistant: { entered: 2, completed: 1, sourceClicked: 1 },
};

const WINDOW = { projectId: 'docs-a', to: '2026-03-28', days: 28, topReferrers: 5 };

/** A project whose stream began on 2026-03-20, inside the 28 days to 03-28. */
const LATE_EVENTS: readonly EventFixtureRow[] = [
  { id: 'l1', type: 'docs.content.view', at: '2026-03-20T08:00:00Z', visitor: 'L', project: 'docs-late' },
  { id: 'l2', type: 'docs.content.view', at: '2026-03-27T08:00:00Z', visitor: 'M', project: 'docs-late' },
];

async function expectLateStart(session: SqlSession): Promise<void> {
  const s = await readEventStream(session, { ...WINDOW, projectId: 'docs-late' });
  expect(s?.startsOn).toBe('2026-03-20');
  expect(s?.from).toBe('2026-03-20');
  expect(s?.visitors.map((v) => [v.from, v.to, v.days, v.total])).toEqual([
    ['2026-03-22', '2026-03-28', 7, 1],
    ['2026-03-20', '2026-03-28', 9, 2],
  ]);
  const onTime = await readEventStream(session, WINDOW);
  expect(onTime?.startsOn).toBeUndefined();
}

function expectSection(got: EventStreamSection | undefined): void {
  expect(got).toBeDefined();
  expect({
    ...got,
    traffic: got?.traffic.map((t) => ({ ...t, share: Math.round((t.share ?? -1) * 1000) / 1000 })),
  }).toEqual(EXPECTED_SECTION);
}

/** The digest of ISO week 2026-W13 (03-23..29) over SECTION_EVENTS, worked out by hand. */
const DIGEST_LINES = [
  '*Event stream*',
  // week: human A, B, G; ai C. 28 days to 03-29: human A, B, D, G; ai C, D.
  '• Unique visitors 2026-03-23 to 2026-03-29: 4 (3 human, 1 AI)',
  '• Unique visitors 2026-03-02 to 2026-03-29: 5 (4 human, 2 AI)',
  '• Page views: 7 (human 71.4%, ai_answers 14.3%, search_index 14.3%)',
  '• Top referrers: bing.com 1, github.com 1, google.com 1, outside.example 1',
  '• Search: 2 queries, 1 result clicks, 1 closed without a click',
  '• Assistant: 1 entered, 1 completed, 1 source clicked',
].join('\n');

async function expectDigest(session: SqlSession): Promise<void> {
  const d = await readDigest(session, 'docs-a', '2026-W13');
  expect(digestMarkdown([d])).toContain(DIGEST_LINES);
  expect(digestHtml([d])).toContain(
    '<h2 style="font-size:15px;line-height:20px;margin:16px 0 4px 0;color:#3f3f46">Event stream</h2>',
  );
  const none = await readDigest(session, 'docs-b', '2026-W13');
  expect(none.eventStream).toBeUndefined();
  expect(digestMarkdown([none])).not.toContain('Event stream');
}

describe('the event-stream section on DuckDB', () => {
  let db: Database;
  let session: SqlSession;

  beforeAll(async () => {
    db = await openDatabase(join(mkdtempSync(join(tmpdir(), 'mintlify-etl-report-events-')), 'a.duckdb'));
    await db.connection.run(insertEventsSql(SECTION_EVENTS));
    await db.connection.run(insertEventsSql(LATE_EVENTS));
    session = duckSession(db.connection);
  });
  afterAll(() => db.close());

  it('starts its periods on the first day of events when the stream began inside them, and says where', async () => {
    await expectLateStart(session);
  });

  it('gives true uniques of 7 and 28 days, traffic shares, top referrers and both funnels, as worked out by hand', async () => {
    expectSection(await readEventStream(session, WINDOW));
  });

  it('is absent for a project without events', async () => {
    expect(await readEventStream(session, { ...WINDOW, projectId: 'docs-b' })).toBeUndefined();
  });

  it("is in the digest: the week's and 28 days' true uniques, the week's classes, referrers and funnels", async () => {
    await expectDigest(session);
  });

  it('is absent, without an error, in a database without the event tables', async () => {
    const old = await openDatabase(join(mkdtempSync(join(tmpdir(), 'mintlify-etl-report-old-')), 'o.duckdb'));
    try {
      for (const v of [
        'v_event_vs_api_daily',
        'v_event_actions_daily',
        'v_event_assistant_daily',
        'v_event_search_daily',
        'v_event_sessions_daily',
        'v_event_referrers_daily',
        'v_event_traffic_daily',
        'v_event_visitors_daily',
      ])
        await old.connection.run(`DROP VIEW IF EXISTS ${v}`);
      await old.connection.run('DROP MACRO TABLE IF EXISTS event_visitors');
      await old.connection.run('DROP TABLE analytics_events');
      expect(await readEventStream(duckSession(old.connection), WINDOW)).toBeUndefined();
    } finally {
      old.close();
    }
  });
});

describe.skipIf(!hasPostgres())('the event-stream section on PostgreSQL', () => {
  const client = pgSchemaWith('ev', [insertEventsSql(SECTION_EVENTS), insertEventsSql(LATE_EVENTS)]);

  it('starts its periods on the first day of events, as on DuckDB', async () => {
    await expectLateStart(pgSession(client()));
  });

  it('gives the same numbers as worked out by hand', async () => {
    expectSection(await readEventStream(pgSession(client()), WINDOW));
  });

  it('gives the same digest lines', async () => {
    await expectDigest(pgSession(client()));
  });

  it('is absent for a project without events, and in a schema without the event tables', async () => {
    expect(await readEventStream(pgSession(client()), { ...WINDOW, projectId: 'docs-b' })).toBeUndefined();
    await client().query('CREATE SCHEMA bare; SET search_path TO bare');
    try {
      expect(await readEventStream(pgSession(client()), WINDOW)).toBeUndefined();
    } finally {
      await client().query('SET search_path TO ev');
    }
  });
});

/** SECTION_EVENTS moved `days` days, for a project. */
function shifted(days: number, project: string): EventFixtureRow[] {
  return SECTION_EVENTS.map((e) => ({
    ...e,
    project,
    at: new Date(Date.parse(e.at) + days * 86_400_000).toISOString(),
  }));
}

const NASTY_HOST = '<img src=x onerror=alert(1)>.example';

describe('the event-stream section in the report', () => {
  const tmp = tempDir('mintlify-etl-report-event-stream-');
  afterAll(() => tmp.cleanup());
  const NOW = new Date(`${addDays(FIXTURE_LAST_DAY, 1)}T06:00:00Z`);

  async function report(withEvents: boolean): Promise<ReportData> {
    const file = `${tmp.dir}/${withEvents ? 'events' : 'none'}.duckdb`;
    await buildReportFixture(file, {});
    const db = await openDatabase(file);
    try {
      if (withEvents) {
        // The fixture's report ends on 2026-03-02: SECTION_EVENTS end on 2026-03-28.
        const extra = {
          id: 'nasty',
          type: 'docs.content.view',
          at: '2026-02-27T09:00:00Z',
          visitor: 'A',
          host: NASTY_HOST,
          project: FIXTURE_PROJECT,
        };
        await db.connection.run(insertEventsSql([...shifted(-26, FIXTURE_PROJECT), extra]));
      }
      return await gatherReport(duckSession(db.connection), { days: 28, now: NOW });
    } finally {
      db.close();
    }
  }

  it('shows true uniques of 7 and 28 days, classes, referrers (escaped in HTML) and funnels in the terminal and the HTML', async () => {
    const data = await report(true);
    const text = renderTerminal(data, { color: false, width: 120 });
    expect(text).toMatch(/Event stream: unique visitors/);
    expect(text).toMatch(/2026-02-24 to 2026-03-02\s+7\s+2\s+1\s+3/);
    expect(text).toMatch(/2026-02-03 to 2026-03-02\s+28\s+3\s+2\s+4/);
    expect(text).toMatch(/human\s+8\s+72\.7%/);
    expect(text).toMatch(/closed without a click\s+1/);
    expect(text).toMatch(/source clicked\s+1/);
    const html = renderHtml(data);
    expect(html).toContain('data-stream="events"');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.example');
    expect(html).not.toContain(NASTY_HOST);
  });

  it('is absent from the report, the terminal and the HTML without events', async () => {
    const data = await report(false);
    expect(data.projects[0]?.eventStream).toBeUndefined();
    expect(renderTerminal(data, { color: false })).not.toContain('Event stream');
    expect(renderHtml(data)).not.toContain('data-stream="events"');
  });
});

describe('a project with only the event stream loaded', () => {
  const tmp = tempDir('mintlify-etl-report-event-only-');
  afterAll(() => tmp.cleanup());

  async function report(now: string, projects?: string[]): Promise<ReportData> {
    const file = `${tmp.dir}/${Math.random().toString(36).slice(2)}.duckdb`;
    const db = await openDatabase(file);
    try {
      await db.connection.run(insertEventsSql(SECTION_EVENTS));
      return await gatherReport(duckSession(db.connection), {
        days: 28,
        now: new Date(now),
        ...(projects ? { projects } : {}),
      });
    } finally {
      db.close();
    }
  }

  it('gets its event-stream section alone, to its last complete day, in the data, the terminal and the HTML', async () => {
    const data = await report('2026-03-29T06:00:00Z');
    expect(data.projects).toEqual([]);
    expect(data.eventOnly?.map((e) => e.projectId)).toEqual(['docs-a']);
    expectSection(data.eventOnly?.[0]?.eventStream);
    const text = renderTerminal(data, { color: false, width: 120 });
    expect(text).toMatch(
      /^Mintlify event stream · project docs-a\n2026-03-01 to 2026-03-28 · only the event stream/,
    );
    expect(text).toMatch(/2026-03-01 to 2026-03-28\s+28\s+3\s+2\s+4/);
    expect(text).not.toContain('No data loaded yet');
    const html = renderHtml(data);
    expect(html).toContain('<h2>Project <code>docs-a</code></h2>');
    expect(html).toContain('data-stream="events"');
    expect(html).not.toContain('class="empty"');
  });

  it("ends the section on the day before today when today's events are loaded (a partial day is no collapse)", async () => {
    const data = await report('2026-03-28T12:00:00Z');
    expect(data.eventOnly?.[0]?.eventStream.to).toBe('2026-03-27');
  });

  it('is left out when --project names another project', async () => {
    const data = await report('2026-03-29T06:00:00Z', ['docs-b']);
    expect(data.eventOnly).toBeUndefined();
    expect(renderTerminal(data, { color: false })).toContain('No data loaded yet');
  });
});
