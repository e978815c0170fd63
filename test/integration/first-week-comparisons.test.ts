import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDigest } from '../../src/insights/digest.js';
import { readGaps } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { gatherReport } from '../../src/report/data.js';
import { tempDbPath } from '../helpers/db.js';
import { completeWeekBefore, firstSync } from '../helpers/first-week-fixture.js';
import { copyTable, duckTables } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * Issue 27 item 13: after a first budget-limited sync (9 days), nothing may be compared with a
 * week of which only 2 days (or none) are loaded. The same readers on DuckDB and on PostgreSQL
 * (the gaps' trend is computed in SQL, once per dialect). Then the week before is loaded whole and
 * the same comparisons appear: the nulls come from the coverage, not from a comparison dropped.
 */

const runPg = hasPostgres();
const NOW = new Date('2026-03-02T08:00:00Z');

interface Place {
  readonly name: string;
  readonly session: SqlSession;
}

describe('the first week compares nothing against days never loaded', () => {
  const dbs: Database[] = [];
  const clients: pg.Client[] = [];
  let server: PostgresServer | undefined;
  const first: Place[] = [];
  const whole: Place[] = [];

  async function place(name: string, fill: (db: Database) => Promise<void>, out: Place[]): Promise<void> {
    const db = await openDatabase(tempDbPath());
    dbs.push(db);
    await fill(db);
    out.push({ name: `${name} on DuckDB`, session: duckSession(db.connection) });
    if (!server) return;
    const client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    clients.push(client);
    await client.connect();
    await migratePostgres(client, { schema: name });
    for (const t of await duckTables(db.connection)) {
      if (t !== 'schema_migrations') await copyTable(db.connection, client, t);
    }
    out.push({ name: `${name} on PostgreSQL`, session: pgSession(client) });
  }

  beforeAll(async () => {
    if (runPg) server = await startPostgres();
    await place('first_sync', (db) => firstSync(db.connection), first);
    await place(
      'week_before_loaded',
      async (db) => {
        await firstSync(db.connection);
        await completeWeekBefore(db.connection);
      },
      whole,
    );
    expect(first.map((x) => x.name)).toHaveLength(runPg ? 2 : 1);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.end();
    for (const db of dbs) db.close();
    await server?.stop();
  });

  it('the report shows no change of the site, the top pages or the movers against 2 loaded days', async () => {
    for (const { name, session } of first) {
      const [p] = (await gatherReport(session, { days: 28, now: NOW })).projects;
      expect(p?.window.to, name).toBe('2026-03-01');
      expect(p?.prev7.daysLoaded, name).toBe(2);
      expect(p?.last7Change, name).toBeNull();
      expect(p?.comparable, name).toBe(false);
      const top = p?.topPages.find((t) => t.path === '/');
      expect(top, name).toMatchObject({
        totalVisitorDays7d: 2100,
        totalVisitorDaysPrev7d: null,
        change: null,
        changePct: null,
      });
      expect(p?.moversUp, name).toEqual([]);
      expect(p?.moversDown, name).toEqual([]);
    }
  });

  it('the report compares the 7 days with the 7 before once both are loaded whole', async () => {
    for (const { name, session } of whole) {
      const [p] = (await gatherReport(session, { days: 28, now: NOW })).projects;
      expect(p?.comparable, name).toBe(true);
      // 700 against 5 x 50 + 2 x 100 = 450.
      expect(p?.last7Change, name).toBeCloseTo(250 / 450, 9);
      const top = p?.topPages.find((t) => t.path === '/');
      expect(top, name).toMatchObject({ totalVisitorDaysPrev7d: 1350, change: 750 });
      expect(
        p?.moversUp.map((m) => m.path),
        name,
      ).toEqual(['/', '/guide']);
    }
  });

  it('gaps give no previous count, no trend and no trend factor when the window before is not loaded', async () => {
    for (const { name, session } of first) {
      for (const days of [7, 28]) {
        const gaps = await readGaps(session, { days });
        expect(gaps.map((g) => g.kind).sort(), `${name} ${days}`).toEqual([
          'flagged',
          'search',
          'unanswered',
        ]);
        for (const g of gaps) {
          expect(g.previousCount, `${name} ${days} ${g.kind}`).toBeNull();
          expect(g.trend, `${name} ${days} ${g.kind}`).toBeNull();
        }
        const view = await session.rows('SELECT previous_count, trend FROM v_content_gaps');
        expect(view.length, name).toBe(3);
        expect(
          view.every((r) => r['previous_count'] === null && r['trend'] === null),
          name,
        ).toBe(true);
        const score = Object.fromEntries(gaps.map((g) => [g.kind, g.score]));
        // The readers failed in the window, times nothing: 7 days of 2 unanswered turns, 20 searches
        // without a click (0.5 each) and 1 thumbs-down.
        const loaded = days === 7 ? 7 : 9;
        expect(score, `${name} ${days}`).toEqual({
          unanswered: 2 * loaded,
          search: 10 * loaded,
          flagged: loaded,
        });
      }
    }
  });

  it('gaps judge the trend once the window before is loaded whole', async () => {
    for (const { name, session } of whole) {
      const gaps = await readGaps(session, { days: 7 });
      const search = gaps.find((g) => g.kind === 'search');
      // 140 searches against 5 x 10 + 2 x 20 = 90: worse, x 1.25.
      expect(search, name).toMatchObject({
        currentCount: 140,
        previousCount: 90,
        trend: 'worse',
        score: 87.5,
      });
      const unanswered = gaps.find((g) => g.kind === 'unanswered');
      expect(unanswered, name).toMatchObject({
        currentCount: 14,
        previousCount: 14,
        trend: 'same',
        score: 14,
      });
    }
  });

  it('the digest shows no change, no movers and no "new" zero-click term against a week not loaded', async () => {
    for (const { name, session } of first) {
      const d = await readDigest(session, 'docs', '2026-W09');
      expect(d.visitors, name).toEqual({ now: 700, before: null, changePct: null, days: 7, daysBefore: 2 });
      expect(d.views, name).toEqual({ now: 2800, before: null, changePct: null, days: 7, daysBefore: 2 });
      expect(d.moversUp, name).toBeNull();
      expect(d.moversDown, name).toBeNull();
      expect(d.newZeroClick, name).toBeNull();
      expect(
        d.gaps.every((g) => g.trend === null && g.previousCount === null),
        name,
      ).toBe(true);
    }
  });

  it('the digest compares the week with the one before once both are loaded whole', async () => {
    for (const { name, session } of whole) {
      const d = await readDigest(session, 'docs', '2026-W09');
      expect(d.visitors, name).toEqual({ now: 700, before: 450, changePct: 55.6, days: 7, daysBefore: 7 });
      expect(
        d.moversUp?.map((m) => [m.path, m.change]),
        name,
      ).toEqual([
        ['/', 750],
        ['/guide', 250],
      ]);
      expect(d.newZeroClick, name).toEqual([]);
    }
  });
});
