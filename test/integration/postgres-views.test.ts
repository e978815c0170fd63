import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { sqlDir } from '../../src/paths.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { duckCanonical, pgCanonical, typeMismatches } from '../helpers/canonical-rows.js';
import { tempDbPath } from '../helpers/db.js';
import { eventFixture, eventInsertSql } from '../helpers/event-fixture.js';
import { DONE_JOB, insertGapEvidence, insertGapFixes } from '../helpers/gap-fixes.js';
import { copyTable, duckTables } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';

/*
 * The same data in both destinations gives the same rows in every view. One emulator is synced
 * into a DuckDB file with every stream (the opt-in ones too, today included, so partial windows
 * exist), a second project is derived from it with gaps, failed and truncated windows and partial
 * days, and every table is copied into a PostgreSQL schema (a name that needs quoting, so nothing
 * relies on `mintlify`). Agent fixes are recorded for gaps of every kind the data holds, so the
 * outcome view has rows. Then every table and view is read from both and compared row by row, and
 * the content gaps of other windows too.
 */

const ALL_STREAMS =
  'visitors,views,searches,feedback,assistant,caller_stats,feedback_by_page,assistant_threads,visitors_weekly,visitors_monthly';
const SCHEMA = 'Views "Copy"';
const SECOND = 'second-project';
const SETTLED = 'settled-project';

/** The views the DuckDB destination ships, by file: known before any database exists. */
const VIEWS = readdirSync(join(sqlDir(), 'views'))
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map(
    (f) =>
      /CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)/i.exec(readFileSync(join(sqlDir(), 'views', f), 'utf8'))?.[1],
  )
  .filter((v): v is string => v !== undefined);

/**
 * For each table with a project column, copies of the synced project's rows: under SETTLED without
 * today (every day complete, so the week-over-week and month-over-month ratios have values), under
 * SECOND without every third day of the month.
 */
async function deriveProjects(
  db: Database,
  tables: readonly string[],
  source: string,
  today: string,
): Promise<void> {
  const conn = db.connection;
  for (const t of tables) {
    const cols = (
      await conn.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = '${t}'`)
    )
      .getRows()
      .map((r) => String(r[0]));
    if (!cols.includes('project_id')) continue;
    const dayCol = ['day', 'window_start', 'period_start'].find((c) => cols.includes(c));
    const copy = (project: string, where: string): string =>
      `INSERT INTO ${t} SELECT * REPLACE ('${project}' AS project_id) FROM ${t} WHERE project_id = '${source}' ${where}`;
    await conn.run(copy(SETTLED, dayCol ? `AND ${dayCol} < DATE '${today}'` : ''));
    await conn.run(copy(SECOND, dayCol ? `AND dayofmonth(${dayCol}) % 3 <> 0` : ''));
  }
  await conn.run(
    `UPDATE sync_windows SET status = 'failed' WHERE project_id = '${SECOND}' AND dayofmonth(window_start) = 7`,
  );
  await conn.run(
    `UPDATE sync_windows SET truncated = true WHERE project_id = '${SECOND}' AND dayofmonth(window_start) % 5 = 0`,
  );
  await conn.run(
    `UPDATE search_totals_daily SET truncated = true WHERE project_id = '${SECOND}' AND dayofmonth(day) = 11`,
  );
  await conn.run(
    `UPDATE site_daily SET partial = true WHERE project_id = '${SECOND}' AND dayofmonth(day) IN (10, 20)`,
  );
  await conn.run(
    `UPDATE site_views_daily SET partial = true WHERE project_id = '${SECOND}' AND dayofmonth(day) = 20`,
  );
  await conn.run(
    `UPDATE site_weekly SET partial = true WHERE project_id = '${SECOND}' AND dayofmonth(period_start) < 8`,
  );
  // Ties, so that every rank's tie-break (text order: DuckDB sorts by code point) decides rows.
  await conn.run(`UPDATE page_daily SET human = 1, ai = 0, total = 1 WHERE project_id = '${SECOND}'`);
  await conn.run(`UPDATE search_daily SET hits = least(hits, 2) WHERE project_id = '${SECOND}'`);
  // Spellings of one question: case (beyond ASCII), doubled spaces, and spaces RE2's \s does not
  // take (vertical tab, no-break space), so the question_key normalisation is compared too.
  await conn.run(
    `UPDATE assistant_turns SET query = CASE minute(ts) % 4 WHEN 0 THEN upper(query) WHEN 1 THEN replace(query, ' ', '  ')
       WHEN 2 THEN replace(query, ' ', chr(11)) ELSE replace(query, ' ', chr(160)) END
     WHERE project_id = '${SECOND}' AND resolution_status = 'unanswered' AND second(ts) % 2 = 0`,
  );
  await conn.run(`UPDATE assistant_turns SET ts = date_trunc('hour', ts) WHERE project_id = '${SECOND}'`);
  // The API's times carry milliseconds; microseconds must survive the copy and the views too.
  await conn.run(
    `UPDATE feedback SET created_at = created_at + to_microseconds(7) WHERE project_id = '${SECOND}'`,
  );
  await conn.run(
    `UPDATE sync_windows SET fetched_at = fetched_at + to_microseconds(999) WHERE project_id = '${SECOND}'`,
  );
  await conn.run(`UPDATE assistant_turns SET ts = ts + to_microseconds(1) WHERE project_id = '${SECOND}'`);
}

const runIf = hasPostgres();

describe.skipIf(!runIf)('the PostgreSQL schema and views', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let emu: Emulator | undefined;
  let db: Database | undefined;
  let tables: string[] = [];
  let gapArgs: [number, string | null][] = [];

  beforeAll(async () => {
    const today = todayUtc();
    const started = await Promise.all([startPostgres(), startEmulator({ seed: 21, days: 100, paths: 60 })]);
    [server, emu] = started;
    const dbPath = tempDbPath();
    const summary = await runSync(
      emulatorSyncOptions(emu, dbPath, {
        streams: parseStreams(ALL_STREAMS),
        from: addDays(today, -100),
        includeToday: true,
        periodPages: true,
        maxThreads: 10_000,
      }),
    );
    expect(summary.status).toBe('succeeded');
    db = await openDatabase(dbPath);
    tables = await duckTables(db.connection);
    await deriveProjects(db, tables, emu.projectId, today);
    await insertGapEvidence(db.connection, today);
    await insertGapFixes(db.connection, today);
    // The event stream (analytics_events): the same wild fixture the event views' own test reads.
    const events = eventFixture([emu.projectId, SECOND, SETTLED], addDays(today, -12), 12);
    for (const sql of eventInsertSql(events)) await db.connection.run(sql);
    gapArgs = [
      [7, addDays(today, -20)],
      [14, null],
      [21, addDays(today, -45)],
    ];

    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await migratePostgres(client, { schema: SCHEMA });
    // schema_migrations is each destination's own record of its migrations: compared, not copied.
    for (const t of tables) if (t !== 'schema_migrations') await copyTable(db.connection, client, t);
    // A BI tool reads in its own TimeZone: the views must not depend on it (+13:45, DST in its winter).
    await client.query("SET TimeZone TO 'Pacific/Chatham'");
  }, 240_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await emu?.close();
    await server?.stop();
  });

  it('has the same tables as DuckDB, each with the same columns in the same order and the contract types', async () => {
    const pgTables = await client.query<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    expect(pgTables.rows.map((r) => r.t)).toEqual(tables);
    for (const t of tables) {
      const duck = await duckCanonical(db!.connection, `SELECT * FROM ${t} LIMIT 0`);
      const post = await pgCanonical(client, `SELECT * FROM "${t}" LIMIT 0`);
      expect(post.columns, t).toEqual(duck.columns);
      expect(typeMismatches(duck, post), t).toEqual([]);
    }
  });

  it('holds every row of every table after the copy (microsecond times, sources as JSON), and the same migrations', async () => {
    for (const t of tables) {
      const cols = t === 'schema_migrations' ? 'version' : '*';
      const duck = await duckCanonical(db!.connection, `SELECT ${cols} FROM ${t}`);
      const post = await pgCanonical(client, `SELECT ${cols} FROM "${t}"`);
      expect(post.rows, t).toEqual(duck.rows);
    }
  });

  it('has exactly the views DuckDB has', async () => {
    const duck = await db!.connection.runAndReadAll(
      "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY 1",
    );
    const post = await client.query<{ v: string }>(
      'SELECT table_name AS v FROM information_schema.views WHERE table_schema = current_schema() ORDER BY 1',
    );
    expect(post.rows.map((r) => r.v)).toEqual(duck.getRows().map((r) => String(r[0])));
    expect([...VIEWS].sort()).toEqual(post.rows.map((r) => r.v));
  });

  it.each(VIEWS)('%s gives the same columns, types and rows on both destinations', async (view) => {
    const duck = await duckCanonical(db!.connection, `SELECT * FROM ${view}`);
    const post = await pgCanonical(client, `SELECT * FROM ${view}`);
    expect(post.columns).toEqual(duck.columns);
    expect(typeMismatches(duck, post)).toEqual([]);
    // Every project has rows: an empty view would compare equal and prove nothing.
    expect(new Set(duck.rows.map((r) => r[0])).size).toBe(3);
    expect(post.rows).toEqual(duck.rows);
  });

  it('gives the same content gaps for other windows and end days', async () => {
    for (const [days, to] of gapArgs) {
      const sql = `SELECT * FROM content_gaps(${days}, ${to === null ? 'NULL' : `DATE '${to}'`})`;
      const duck = await duckCanonical(db!.connection, sql);
      const post = await pgCanonical(client, sql);
      expect(post.columns, sql).toEqual(duck.columns);
      expect(typeMismatches(duck, post), sql).toEqual([]);
      expect(new Set(duck.rows.map((r) => r[0])).size, sql).toBe(3);
      expect(post.rows, sql).toEqual(duck.rows);
    }
  });

  it('finds gaps of several kinds and measures fixes of several kinds, not only too little data', async () => {
    const kinds = await duckCanonical(db!.connection, 'SELECT DISTINCT kind FROM v_content_gaps');
    expect(kinds.rows.length).toBe(4);
    const outcomes = await duckCanonical(
      db!.connection,
      `SELECT DISTINCT kind, verdict FROM v_gap_outcomes WHERE job_id = '${DONE_JOB}'`,
    );
    expect(new Set(outcomes.rows.map((r) => r[0])).size).toBe(4);
    expect(outcomes.rows.filter((r) => r[1] !== 'too little data').length).toBeGreaterThan(0);
  });

  it('reads the gap views from a session whose search_path names another schema', async () => {
    const quoted = `"${SCHEMA.replaceAll('"', '""')}"`;
    const inSchema = await pgCanonical(client, 'SELECT * FROM v_content_gaps');
    await client.query('SET search_path TO public');
    try {
      const outside = await pgCanonical(client, `SELECT * FROM ${quoted}.v_content_gaps`);
      expect(outside.rows).toEqual(inSchema.rows);
      const outcomes = await pgCanonical(client, `SELECT * FROM ${quoted}.v_gap_outcomes`);
      expect(outcomes.rows.length).toBeGreaterThan(0);
    } finally {
      await client.query(`SET search_path TO ${quoted}`);
    }
  });
});
