import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFrom } from '../../src/cli/export-action.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget, type DbTarget } from '../../src/load/target.js';
import { openReadable } from '../../src/load/duckdb/readable.js';
import { READER_MEMORY_LIMIT } from '../../src/load/duckdb/database.js';
import { DEFAULT_QUERY_TIMEOUT_MS, withPostgresQuery } from '../../src/load/postgres/user-query.js';

import { printRows } from '../../src/cli/query-action.js';
import type { QueryFlags } from '../../src/cli/query.js';
import { createOutput, OutputClosed } from '../../src/cli/output.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { SqlError, UsageError } from '../../src/errors.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { exportTables } from '../../src/load/duckdb/export.js';
import { type ExportOptions, type ExportSummary } from '../../src/load/export-plan.js';
import { exportFromPostgres } from '../../src/load/postgres/export.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import { runSync } from '../../src/pipeline/sync.js';
import type { OutputFormat } from '../../src/query/format.js';
import { streamQuery } from '../../src/load/duckdb/user-query.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { tempDbPath } from '../helpers/db.js';
import { copyTable, duckTables } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';

/*
 * `query` and `export` read a PostgreSQL destination as they read a DuckDB file. One emulator is
 * synced into DuckDB with every stream, a few rows are made awkward (text with quotes, commas,
 * newlines and non-ASCII, empty strings beside NULLs, feedback without a date, microseconds), every
 * table is copied into a PostgreSQL schema, and then both destinations print the same bytes for the
 * same queries and export the same files.
 */

const ALL_STREAMS =
  'visitors,views,searches,feedback,assistant,caller_stats,feedback_by_page,assistant_threads,visitors_weekly,visitors_monthly';
const SCHEMA = 'Query "Export"';

/** Text that every format must carry through: quotes, a comma, a newline, CR, non-ASCII. */
const ODD = ' "quoted", then\nnext\r line – ünï 🚀';

/** Counts past 2^53 that no double holds (a double reads them as ...992 and ...996). */
const BIG_TOTAL = '9007199254740993';
const BIG_HITS = '9007199254740995';

/** `query`'s printing over a connected client, as the PostgreSQL place runs it. */
async function queryPostgres(
  client: pg.ClientBase,
  sql: string,
  flags: QueryFlags,
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stdout,
): Promise<void> {
  const out = createOutput(stdout);
  const timeoutMs = flags.timeout !== undefined ? flags.timeout * 1000 : DEFAULT_QUERY_TIMEOUT_MS;
  try {
    await withPostgresQuery(client, sql, { timeoutMs }, (stream) => printRows(stream, flags, out, stdout));
  } catch (e) {
    if (!(e instanceof OutputClosed)) throw e;
  }
}

async function makeAwkward(conn: DuckDBConnection): Promise<void> {
  const last = (t: string, key: string): string =>
    `day = (SELECT max(day) FROM ${t}) AND ${key} = (SELECT min(${key}) FROM ${t} WHERE day = (SELECT max(day) FROM ${t}))`;
  await conn.run(`UPDATE page_daily SET total = ${BIG_TOTAL} WHERE ${last('page_daily', 'path')}`);
  await conn.run(`UPDATE search_daily SET hits = ${BIG_HITS} WHERE ${last('search_daily', 'query')}`);
  await conn.run(`UPDATE page_daily SET path = path || '${ODD}' WHERE dayofmonth(day) = 3`);
  await conn.run(
    `UPDATE feedback SET created_at = NULL WHERE id IN (SELECT id FROM feedback ORDER BY id LIMIT 2)`,
  );
  await conn.run(
    `UPDATE feedback SET comment = CASE WHEN hash(id) % 2 = 0 THEN '' ELSE NULL END WHERE id IN (SELECT id FROM feedback ORDER BY id DESC LIMIT 4)`,
  );
  await conn.run(
    `UPDATE feedback SET created_at = created_at + to_microseconds(7) WHERE minute(created_at) % 2 = 0`,
  );
  await conn.run(`UPDATE search_daily SET query = query || '${ODD}' WHERE hits % 3 = 0`);
  // A row longer than export's CSV buffer from PostgreSQL (4 MiB): read again with a bigger one.
  await conn.run(
    `UPDATE feedback SET comment = repeat('long, "quoted"\n text ', 400000) WHERE id = (SELECT max(id) FROM feedback WHERE created_at IS NOT NULL)`,
  );
}

/** A stdout that keeps what was written. */
function sink(): Writable & { text: () => string } {
  const chunks: Buffer[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return Object.assign(w, { text: () => Buffer.concat(chunks).toString('utf8') });
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

const runIf = hasPostgres();

describe.skipIf(!runIf)('query and export on a PostgreSQL destination', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let emu: Emulator | undefined;
  let db: Database | undefined;
  let dbPath = '';
  let reader: DuckDBInstance;
  let rc: DuckDBConnection;

  beforeAll(async () => {
    const today = todayUtc();
    const started = await Promise.all([startPostgres(), startEmulator({ seed: 5, days: 100, paths: 60 })]);
    [server, emu] = started;
    dbPath = tempDbPath();
    const summary = await runSync(
      emulatorSyncOptions(emu, dbPath, {
        streams: parseStreams(ALL_STREAMS),
        from: addDays(today, -100),
        periodPages: true,
        maxThreads: 10_000,
      }),
    );
    expect(summary.status).toBe('succeeded');
    db = await openDatabase(dbPath);
    await makeAwkward(db.connection);
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema: SCHEMA });
    for (const t of await duckTables(db.connection))
      if (t !== 'schema_migrations') await copyTable(db.connection, client, t);
    db.close();
    db = undefined;
    reader = await DuckDBInstance.create(':memory:');
    rc = await reader.connect();
  }, 240_000);

  afterAll(async () => {
    rc?.closeSync();
    reader?.closeSync();
    await client?.end();
    db?.close();
    await emu?.close();
    await server?.stop();
  });

  async function onDuckDb(sql: string, flags: QueryFlags): Promise<string> {
    const out = sink();
    const ro = await openReadable(dbPath, { sandbox: true });
    try {
      await printRows(await streamQuery(ro.connection, sql), flags, createOutput(out), out);
    } finally {
      ro.close();
    }
    return out.text();
  }

  async function onPostgres(sql: string, flags: QueryFlags): Promise<string> {
    const out = sink();
    await queryPostgres(client, sql, flags, out);
    return out.text();
  }

  async function count(table: string): Promise<number> {
    return Number((await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);
  }

  // Text is ordered by its md5: PostgreSQL sorts text by the database's collation, DuckDB by code point.
  const QUERIES = [
    // bigint, date, boolean
    'SELECT project_id, day, human, ai, total, partial FROM site_daily ORDER BY md5(project_id), day',
    // double, timestamptz, text with quotes and newlines
    'SELECT day, query, hits, ctr, top_clicked_path, last_searched_at FROM search_daily ORDER BY day, md5(query)',
    // jsonb / LIST<STRUCT>, microsecond times
    'SELECT thread_id, ts, sources, response_type FROM assistant_turns ORDER BY ts, md5(thread_id)',
    // NULL beside empty strings, NULL times
    'SELECT id, left(comment, 60) AS comment, helpful, created_at FROM feedback ORDER BY md5(id)',
    // more rows than one FETCH
    'SELECT day, path, total FROM page_daily ORDER BY day, md5(path)',
    // several statements: the last one is printed
    "SELECT 1 AS one; SELECT count(*) AS n, min(day) AS first, max(ctr) AS best FROM search_daily WHERE query <> ''",
    // duplicate column names, a view
    'SELECT day AS d, total AS d, human FROM v_site_daily ORDER BY 1, 2 LIMIT 20',
  ];
  const FORMATS: OutputFormat[] = ['table', 'csv', 'json', 'jsonl'];

  it.each(FORMATS)('prints the same %s bytes on both destinations for the same data', async (format) => {
    for (const sql of QUERIES) {
      const flags: QueryFlags = { format, maxWidth: 200 };
      const duck = await onDuckDb(sql, flags);
      const post = await onPostgres(sql, flags);
      expect(post.length, sql).toBeGreaterThan(20);
      expect(post, sql).toBe(duck);
    }
  });

  it('reads counts beyond 2^53 back exact, as DuckDB does: query in every format, the session, CSV and Parquet export', async () => {
    const sql = `SELECT 'page' AS k, total AS n FROM page_daily WHERE total > 9007199254740992
      UNION ALL SELECT 'term', hits FROM search_daily WHERE hits > 9007199254740992 ORDER BY k`;
    const want = [
      { k: 'page', n: BIG_TOTAL },
      { k: 'term', n: BIG_HITS },
    ];
    for (const format of FORMATS) {
      const post = await onPostgres(sql, { format, maxWidth: 200 });
      expect(post, format).toBe(await onDuckDb(sql, { format, maxWidth: 200 }));
      expect(post, format).toContain(BIG_TOTAL);
      expect(post, format).toContain(BIG_HITS);
    }
    expect(JSON.parse(await onPostgres(sql, { format: 'json' }))).toEqual(want);
    expect(await pgSession(client).rows(sql)).toEqual(want);
    const ro = await openReadable(dbPath, { memoryLimit: READER_MEMORY_LIMIT });
    try {
      expect(await duckSession(ro.connection).rows(sql)).toEqual(want);
    } finally {
      ro.close();
    }
    const to = todayUtc();
    for (const format of ['csv', 'parquet'] as const) {
      const { duck, post } = await exportBoth({ format, from: addDays(to, -3), to });
      for (const [table, column, big] of [
        ['page_daily', 'total', BIG_TOTAL],
        ['search_daily', 'hits', BIG_HITS],
      ] as const) {
        const read = async (dir: string): Promise<unknown[][]> => {
          const glob = join(dir, table, '**', `*.${format}`).replaceAll("'", "''");
          const from =
            format === 'csv' ? `read_csv('${glob}', all_varchar = true)` : `read_parquet('${glob}')`;
          return (
            await rc.runAndReadAll(
              `SELECT ${column}::VARCHAR FROM ${from} WHERE length(${column}::VARCHAR) > 15`,
            )
          ).getRows();
        };
        expect(await read(post), `${format} ${table}`).toEqual([[big]]);
        expect(await read(duck), `${format} ${table}`).toEqual([[big]]);
      }
    }
  });

  it('streams a large result in batches and prints every row', async () => {
    const sql = 'SELECT day, path, total FROM page_daily ORDER BY day, md5(path)';
    const rows = await count('page_daily');
    expect(rows).toBeGreaterThan(4096);
    const csv = await onPostgres(sql, { format: 'csv' });
    expect(csv).toBe(await onDuckDb(sql, { format: 'csv' }));
  });

  it.each([
    [
      'INSERT',
      "INSERT INTO site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id) VALUES ('x', DATE '2020-01-01', 1, 0, 1, false, now(), 'r')",
    ],
    ['UPDATE', 'UPDATE site_daily SET total = 0'],
    ['DELETE', 'DELETE FROM site_daily'],
    ['CREATE', 'CREATE TABLE intruder (a int)'],
    ['DROP', 'DROP TABLE site_daily'],
    ['TRUNCATE', 'TRUNCATE site_daily'],
    ['a write after a read', 'SELECT 1; DROP TABLE site_daily'],
    ['a write inside WITH', 'WITH gone AS (DELETE FROM site_daily RETURNING 1) SELECT count(*) FROM gone'],
    ['COMMIT, then a write', 'COMMIT; DROP TABLE site_daily'],
    ['ROLLBACK, then a write', 'SELECT 1; ROLLBACK; CREATE TABLE intruder (a int)'],
  ])('refuses %s with a SQL error (exit 2) and changes nothing', async (_what, sql) => {
    const before = await count('site_daily');
    const err = await queryPostgres(client, sql, { format: 'csv' }, sink()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SqlError);
    expect((err as SqlError).exitCode).toBe(2);
    expect((err as Error).message).not.toContain('\n');
    expect(await count('site_daily')).toBe(before);
    const intruder = await client.query<{ t: string | null }>("SELECT to_regclass('intruder') AS t");
    expect(intruder.rows[0]?.t).toBeNull();
    // The session is out of the transaction and reads on.
    expect(await onPostgres('SELECT 1 AS a', { format: 'csv' })).toBe('a\n1\n');
  });

  it('says why a write is refused', async () => {
    const err = (await queryPostgres(client, 'DELETE FROM site_daily', { format: 'csv' }, sink()).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toMatch(/cannot execute DELETE in a read-only transaction \(query is read-only/);
  });

  it.each([
    ['a statement', 'SELECT pg_sleep(60)'],
    ['a fetch of the cursor', 'SELECT x, pg_sleep(20) FROM generate_series(1, 3) x'],
    ['a statement before the last', 'SELECT pg_sleep(60); SELECT 1'],
  ])('cancels %s at the timeout with a SQL error', async (_what, sql) => {
    const err = (await queryPostgres(client, sql, { format: 'csv', timeout: 1 }, sink()).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(SqlError);
    expect(err.message).toMatch(/canceling statement due to statement timeout \(after 1 s/);
    expect(await onPostgres('SELECT 2 AS b', { format: 'csv' })).toBe('b\n2\n');
  });

  it('refuses, before anything runs, a DO block that builds a call lifting the timeout at run time', async () => {
    // set_config itself is refused (pg-guard.ts); a DO block's EXECUTE runs SQL no guard can read.
    const sql =
      "DO $$BEGIN EXECUTE 'SELECT set_' || 'config(''statement_timeout'', ''0'', true)'; END$$; SELECT pg_sleep(60)";
    const err = (await queryPostgres(client, sql, { format: 'csv', timeout: 1 }, sink()).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(SqlError);
    expect(err.message).toMatch(/a DO block with EXECUTE is refused/);
    expect(await onPostgres('SELECT 2 AS b', { format: 'csv' })).toBe('b\n2\n');
  });

  async function exportBoth(over: Partial<ExportOptions>): Promise<{ duck: string; post: string }> {
    const duck = await mkdtemp(join(tmpdir(), 'mintlify-etl-export-duck-'));
    const post = await mkdtemp(join(tmpdir(), 'mintlify-etl-export-pg-'));
    const ro = await openReadable(dbPath, { memoryLimit: READER_MEMORY_LIMIT });
    try {
      await exportTables(ro.connection, { outDir: duck, format: 'parquet', ...over });
    } finally {
      ro.close();
    }
    await exportFromPostgres(client, { outDir: post, format: 'parquet', ...over });
    return { duck, post };
  }

  async function parquet(file: string): Promise<{ schema: unknown[][]; rows: string }> {
    const path = file.replaceAll("'", "''");
    const schema = (
      await rc.runAndReadAll(
        `SELECT name, type, type_length, repetition_type, converted_type, logical_type FROM parquet_schema('${path}')`,
      )
    ).getRows();
    const rows = (
      await rc.runAndReadAll(`SELECT * FROM read_parquet('${path}', hive_partitioning = false)`)
    ).getRowsJson();
    return { schema, rows: JSON.stringify(rows) };
  }

  it('exports the same Parquet files, schemas and rows from both destinations', async () => {
    const { duck, post } = await exportBoth({ includePersonalData: true });
    const files = filesUnder(duck).filter((f) => f.endsWith('.parquet'));
    expect(files.length).toBeGreaterThan(20);
    expect(filesUnder(post)).toEqual(filesUnder(duck));
    expect(files.some((f) => f.includes('__HIVE_DEFAULT_PARTITION__'))).toBe(true);
    for (const f of files) {
      const [a, b] = await Promise.all([parquet(join(duck, f)), parquet(join(post, f))]);
      expect(b.schema, f).toEqual(a.schema);
      expect(b.rows, f).toBe(a.rows);
    }
    const sources = await parquet(join(duck, files.find((f) => f.startsWith('assistant_turns/')) ?? ''));
    expect(JSON.stringify(sources.schema)).toContain('title');
  });

  it('exports the same CSV bytes for a range of months, leaving personal data out', async () => {
    const to = todayUtc();
    const { duck, post } = await exportBoth({ format: 'csv', from: addDays(to, -40), to });
    const files = filesUnder(duck).filter((f) => f.endsWith('.csv'));
    expect(files.length).toBeGreaterThan(10);
    expect(filesUnder(post)).toEqual(filesUnder(duck));
    for (const f of files) {
      expect(statSync(join(post, f)).size, f).toBe(statSync(join(duck, f)).size);
      expect(readFileSync(join(post, f), 'utf8'), f).toBe(readFileSync(join(duck, f), 'utf8'));
    }
    const feedback = files.find((f) => f.startsWith('feedback/'));
    expect(readFileSync(join(post, feedback ?? ''), 'utf8')).not.toContain('contact');
  });

  it('export from PostgreSQL checks OUT and sums up as from DuckDB', async () => {
    const out = await mkdtemp(join(tmpdir(), 'mintlify-etl-export-cli-'));
    const result = await exportFrom(placeOf({ ...parseDbTarget(server!.url), schema: SCHEMA } as DbTarget), {
      out,
      format: 'parquet',
      json: true,
    });
    expect(result.exitCode).toBe(0);
    const summary = result.json as ExportSummary;
    expect(summary.tables.find((t) => t.table === 'page_daily')?.rows).toBe(await count('page_daily'));
    expect(summary.skippedColumns).toEqual([{ table: 'feedback', columns: ['contact'], reason: 'personal' }]);
    const foreign = await mkdtemp(join(tmpdir(), 'mintlify-etl-export-foreign-'));
    writeFileSync(join(foreign, 'notes.txt'), 'mine');
    await expect(
      exportFrom(placeOf({ ...parseDbTarget(server!.url), schema: SCHEMA } as DbTarget), {
        out: foreign,
        format: 'csv',
      }),
    ).rejects.toBeInstanceOf(UsageError);
    expect(readdirSync(foreign)).toEqual(['notes.txt']);
  });
});
