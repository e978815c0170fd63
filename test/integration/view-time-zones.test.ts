import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays } from '../../src/util/day.js';
import { duckCanonical, pgCanonical, type Canonical } from '../helpers/canonical-rows.js';
import { tempDbPath } from '../helpers/db.js';
import { eventFixture, eventInsertSql } from '../helpers/event-fixture.js';
import { insertGapEvidence, insertGapFixes } from '../helpers/gap-fixes.js';
import { copyTable, duckTables } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { clockFrom, emulatorSyncOptions } from '../helpers/sync-options.js';

/*
 * A view means one thing whatever the reading session's TimeZone (a BI tool's, a PostgreSQL
 * role's): days are UTC days, and no view reads a DATE as a TIMESTAMPTZ (or the reverse) in the
 * session's zone. The data sits at a day's edges: today fetched at 23:30 UTC with --include-today
 * (a partial day: in Pacific/Chatham, +13:45, that instant is already after today ended there),
 * yesterday's windows fetched at 00:10 UTC (just after the day ended; in America/Los_Angeles the
 * day has not ended yet then), and turns and feedback at 00:10 and 23:50 UTC.
 */

const TODAY = '2026-03-10';
const STREAMS =
  'visitors,views,searches,feedback,assistant,caller_stats,feedback_by_page,assistant_threads,visitors_weekly,visitors_monthly';
const ZONES = ['Pacific/Chatham', 'America/Los_Angeles'] as const;

/** The edges: yesterday fetched just after midnight UTC, events a few minutes from midnight. */
async function atTheEdges(db: Database): Promise<void> {
  const conn = db.connection;
  const yesterday = addDays(TODAY, -1);
  await conn.run(
    `UPDATE sync_windows SET fetched_at = TIMESTAMPTZ '${TODAY} 00:10:00+00'
     WHERE window_end = DATE '${TODAY}' AND status = 'loaded'`,
  );
  await conn.run(`INSERT INTO assistant_turns
    SELECT project_id, 'edge-' || n, TIMESTAMPTZ '${yesterday} 00:00:00+00' + INTERVAL (n * 10) MINUTE,
      'How do I rotate a key?', 'Not sure', 'answer', 'unanswered', 'keys', 'https://docs.example.com/keys', [],
      TIMESTAMPTZ '${TODAY} 00:10:00+00', 'edge', window_start
    FROM (SELECT DISTINCT project_id, window_start FROM sync_windows
          WHERE stream = 'assistant' AND window_start <= DATE '${yesterday}' AND window_end > DATE '${yesterday}'),
      (VALUES (1), (143)) AS t(n)`);
  await conn.run(`INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at,
      first_seen_at, last_seen_at, run_id, window_start)
    SELECT project_id, 'edge-' || n, '/edge', 'contextual', 'pending', 'Wrong at midnight', false, NULL,
      TIMESTAMPTZ '${yesterday} 00:00:00+00' + INTERVAL (n * 10) MINUTE, TIMESTAMPTZ '${TODAY} 00:10:00+00',
      TIMESTAMPTZ '${TODAY} 00:10:00+00', 'edge', window_start
    FROM (SELECT DISTINCT project_id, window_start FROM sync_windows
          WHERE stream = 'feedback' AND window_start <= DATE '${yesterday}' AND window_end > DATE '${yesterday}'),
      (VALUES (1), (143)) AS t(n)`);
}

const runIf = hasPostgres();

describe.skipIf(!runIf)("every view gives the same rows in any session's time zone", () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let emu: Emulator | undefined;
  let db: Database | undefined;
  let views: string[] = [];

  beforeAll(async () => {
    [server, emu] = await Promise.all([
      startPostgres(),
      startEmulator({ seed: 7, days: 40, paths: 12, today: TODAY }),
    ]);
    const dbPath = tempDbPath();
    const summary = await runSync(
      emulatorSyncOptions(emu, dbPath, {
        streams: parseStreams(STREAMS),
        from: addDays(TODAY, -40),
        includeToday: true,
        periodPages: true,
        maxThreads: 1000,
        now: clockFrom(`${TODAY}T23:30:00Z`),
      }),
    );
    expect(summary.status).toBe('succeeded');
    db = await openDatabase(dbPath);
    await insertGapEvidence(db.connection, TODAY);
    await insertGapFixes(db.connection, TODAY, 14);
    await atTheEdges(db);
    // The event stream: events at the edges of UTC days too (the fixture's first and last microsecond).
    for (const sql of eventInsertSql(eventFixture([emu.projectId], addDays(TODAY, -12), 13))) {
      await db.connection.run(sql);
    }
    views = (
      await db.connection.runAndReadAll(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY 1",
      )
    )
      .getRows()
      .map((r) => String(r[0]));
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await migratePostgres(client, { schema: 'zones' });
    for (const t of await duckTables(db.connection)) {
      if (t !== 'schema_migrations') await copyTable(db.connection, client, t);
    }
  }, 240_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await emu?.close();
    await server?.stop();
  });

  /** Every view's rows on one destination, read in `zone`. */
  async function readAll(dest: 'duckdb' | 'postgres', zone: string): Promise<Record<string, Canonical[][]>> {
    const out: Record<string, Canonical[][]> = {};
    if (dest === 'duckdb') await db!.connection.run(`SET TimeZone = '${zone}'`);
    else await client.query(`SET TimeZone TO '${zone}'`);
    for (const v of views) {
      const r =
        dest === 'duckdb'
          ? await duckCanonical(db!.connection, `SELECT * FROM ${v}`)
          : await pgCanonical(client, `SELECT * FROM ${v}`);
      out[v] = r.rows;
    }
    return out;
  }

  it('reads every view, and no view or macro casts to TIMESTAMPTZ (the session zone would pick the instant)', async () => {
    expect(views.length).toBeGreaterThanOrEqual(15);
    const defs = await db!.connection.runAndReadAll(
      `SELECT view_name AS name, sql AS def FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'
       UNION ALL
       SELECT function_name, macro_definition FROM duckdb_functions()
       WHERE NOT internal AND schema_name = 'main' AND macro_definition IS NOT NULL`,
    );
    const casting = defs
      .getRowObjects()
      .filter((r) =>
        /::\s*TIMESTAMPTZ|AS\s+TIMESTAMPTZ\s*\)|TIMESTAMP WITH TIME ZONE/i.test(String(r['def'])),
      )
      .map((r) => String(r['name']));
    expect(casting).toEqual([]);
  });

  it.each(['duckdb', 'postgres'] as const)(
    'gives every view the same rows in UTC, Pacific/Chatham and America/Los_Angeles on %s',
    async (dest) => {
      const utc = await readAll(dest, 'UTC');
      for (const v of views) expect(utc[v]?.length, `${v} has rows`).toBeGreaterThan(0);
      for (const zone of ZONES) {
        const other = await readAll(dest, zone);
        const differ = views.filter((v) => JSON.stringify(other[v]) !== JSON.stringify(utc[v]));
        expect(differ, `views that differ in ${zone} from UTC`).toEqual([]);
      }
    },
  );

  it.each(['duckdb', 'postgres'] as const)(
    'ends the period of every view with one on the newest complete day, never on today loaded partial, on %s',
    async (dest) => {
      const ends = `SELECT 'v_page_trends' AS v, max(last_day) AS d FROM v_page_trends
        UNION ALL SELECT 'v_page_health', max(last_day) FROM v_page_health
        UNION ALL SELECT 'v_search_terms', max(last_day) FROM v_search_terms
        UNION ALL SELECT 'v_content_gaps', max(window_end) - 1 FROM v_content_gaps
        ORDER BY 1`;
      const rows =
        dest === 'duckdb' ? await duckCanonical(db!.connection, ends) : await pgCanonical(client, ends);
      const yesterday = addDays(TODAY, -1);
      expect(rows.rows).toEqual([
        ['v_content_gaps', yesterday],
        ['v_page_health', yesterday],
        ['v_page_trends', yesterday],
        ['v_search_terms', yesterday],
      ]);
    },
  );
});
