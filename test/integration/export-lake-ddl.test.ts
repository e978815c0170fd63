import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { globLiteral } from '../../src/export/lake/ddl/duckdb.js';
import { lakeTables, type LakeTable } from '../../src/export/lake/lake-schema.js';
import type { TableManifest } from '../../src/export/lake/manifest.js';
import { readContractTypes } from '../../src/load/contract-types.js';
import { EXPORT_TABLES } from '../../src/load/export-plan.js';
import { addDays } from '../../src/util/day.js';
import { insertEventsSql } from '../helpers/analytics-events-rows.js';
import { runCli } from '../helpers/cli.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { copyDuckFileToPostgres } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * export --ddl duckdb, proved by running it: a synced DuckDB file exported into a folder lake
 * (export --to DIR), the printed statements run in a fresh DuckDB, and every table read through
 * them compared with the source table, row for row, both ways. The folder's name has quotes, a
 * backslash and a semicolon: the statements must carry it as it is.
 */

const TODAY = '2026-11-23';
const NOW = `${TODAY}T06:00:00.000Z`;
const STREAMS =
  'visitors,views,searches,feedback,feedback_by_page,assistant,caller_stats,assistant_threads,visitors_weekly,visitors_monthly';
const ODD_PROJECTS = ['docs b/ü', "it's=%2F"];
const ODD_PATHS = ['/文档/快速开始', '/say "hi", then\nleave', "/it's/ünïcode 🚀", '/users/bob@corp.io'];

let emu: Emulator;
let dir: string;
let dbFile: string;
let lake: string;
let tables: LakeTable[];

/** Every column a table's lake rows have, in the order the DDL declares them. */
function columnsOf(t: LakeTable): string[] {
  return [...t.columns, ...t.partitions].map((c) => `"${c.name}"`);
}

/** The source table's rows as the lake should give them back: year and month of its partition day. */
function sourceSelect(t: LakeTable): string {
  const spec = EXPORT_TABLES.find((s) => s.table === t.table);
  const day = spec?.partitionDay ?? 'day';
  const exprs = [...t.columns, ...t.partitions].map((c) =>
    c.name === 'year'
      ? `year(${day})::INTEGER AS year`
      : c.name === 'month'
        ? `month(${day})::INTEGER AS month`
        : `"${c.name}"`,
  );
  return `SELECT ${exprs.join(', ')} FROM src."${t.table}"`;
}

async function scalar(c: DuckDBConnection, sql: string): Promise<number> {
  return Number((await c.runAndReadAll(sql)).getRows()[0]?.[0]);
}

/** A fresh in-memory DuckDB with the statements run and the source attached read-only. */
async function mounted(statements: readonly string[]): Promise<{ c: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  for (const s of statements) await c.run(s);
  await c.run(`ATTACH '${dbFile.replaceAll("'", "''")}' AS src (READ_ONLY)`);
  return {
    c,
    close: () => {
      c.closeSync();
      instance.closeSync();
    },
  };
}

async function ddl(args: readonly string[], to = lake): Promise<string[]> {
  const run = await runCli(['export', '--ddl', 'duckdb', '--to', to, '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as string[];
}

/**
 * Expects every table read through the views to hold exactly its source rows (count, then
 * EXCEPT ALL both ways), `skip` columns left out of the comparison.
 */
async function expectSourceRows(c: DuckDBConnection, skip: ReadonlySet<string> = new Set()): Promise<void> {
  for (const t of tables) {
    const want = await scalar(c, `SELECT count(*) FROM src."${t.table}"`);
    expect(want, `${t.table} has rows to compare`).toBeGreaterThan(0);
    const kept: LakeTable = {
      ...t,
      columns: t.columns.filter((col) => !skip.has(`${t.table}.${col.name}`)),
    };
    const view = `SELECT ${columnsOf(kept).join(', ')} FROM main."${t.table}"`;
    expect(await scalar(c, `SELECT count(*) FROM (${view})`), t.table).toBe(want);
    expect(await scalar(c, `SELECT count(*) FROM (${view} EXCEPT ALL ${sourceSelect(kept)})`), t.table).toBe(
      0,
    );
    expect(await scalar(c, `SELECT count(*) FROM (${sourceSelect(kept)} EXCEPT ALL ${view})`), t.table).toBe(
      0,
    );
  }
}

/** Each table's manifest declares the columns and types the DDL declares. */
function expectManifestsMatch(root: string): void {
  for (const t of tables) {
    const manifest = JSON.parse(readFileSync(join(root, t.table, '_manifest.json'), 'utf8')) as TableManifest;
    expect(manifest.columns, t.table).toEqual(t.columns);
    expect(manifest.partitionColumns, t.table).toEqual(t.partitions.map((p) => p.name));
  }
}

async function fillWildRows(): Promise<void> {
  await withDuckFile(dbFile, async (db) => {
    const run = (sql: string, params: (string | number | boolean | null)[] = []): Promise<unknown> =>
      db.connection.run(sql, params);
    for (const [p, project] of ODD_PROJECTS.entries()) {
      for (const [d, day] of ['2026-10-31', '2026-11-01', '2026-11-20'].entries()) {
        await run(
          `INSERT INTO site_daily VALUES ($1, $2::DATE, $3, $4, $5, $6, TIMESTAMPTZ '2026-11-22 00:00:00+00', 'run-x')`,
          [project, day, d + p, d, 2 * d + 1, d % 2 === 0],
        );
      }
    }
    // Feedback without created_at: the __HIVE_DEFAULT_PARTITION__ folders, year and month NULL.
    await run(
      `INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at, first_seen_at, last_seen_at, run_id, window_start)
       VALUES ($1, 'fb-undated', $2, 'contextual', 'pending', $3, true, 'bob@corp.io', NULL,
         TIMESTAMPTZ '2026-11-01 00:00:00+00', TIMESTAMPTZ '2026-11-02 00:00:00+00', 'run-x', DATE '2026-11-01')`,
      [emu.projectId, ODD_PATHS[1]!, 'a "comment"; DROP TABLE feedback; --'],
    );
    await run(
      insertEventsSql(
        ODD_PATHS.flatMap((path, i) =>
          ODD_PROJECTS.map((project, p) => ({
            id: `e-${i}-${p}`,
            type: i % 2 === 0 ? 'page_view' : 'search',
            at: `2026-11-${String(10 + i).padStart(2, '0')}T23:59:59.999999Z`,
            path,
            project,
            host: i === 0 ? 'www.google.com' : null,
            anon: `anon-${i}`,
            session: i === 1 ? null : `s-${i}`,
            user: i === 2 ? 'bob@corp.io' : null,
            properties: i === 3 ? null : JSON.stringify({ i, nested: { path }, list: [1, 'two'] }),
          })),
        ),
      ),
    );
  });
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 11, days: 40, paths: 30, latencyMs: 0, today: TODAY });
  dir = mkdtempSync(join(tmpdir(), 'lake-ddl-'));
  dbFile = join(dir, 'analytics.duckdb');
  lake = join(dir, `lake it's "odd" [1] * ? {a} ; --`);
  const env = {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_NOW: NOW,
  };
  const sync = await runCli(
    [
      'sync',
      '--db',
      dbFile,
      '--streams',
      STREAMS,
      '--from',
      addDays(TODAY, -35),
      '--rate-limit',
      '100000/1h',
      '--max-threads',
      '20',
      '--period-pages',
      '-q',
    ],
    env,
  );
  expect(sync.code, sync.stderr).toBe(0);
  await fillWildRows();
  const exported = await runCli(
    ['export', '--db', dbFile, '--to', lake, '--include-personal-data', '--json'],
    {
      MINTLIFY_ETL_NOW: NOW,
    },
  );
  expect(exported.code, exported.stderr).toBe(0);
  tables = lakeTables(await readContractTypes(), true);
}, 180_000);

afterAll(async () => {
  await emu?.close();
});

describe('export --ddl duckdb, run in a fresh DuckDB over export --to DIR', () => {
  it('gives back every table with exactly the source rows, partition columns included', async () => {
    const statements = await ddl(['--include-personal-data']);
    expect(statements).toHaveLength(tables.length);
    const { c, close } = await mounted(statements);
    try {
      await expectSourceRows(c);
      // The undated feedback row is there, in the NULL partition.
      expect(
        await scalar(
          c,
          `SELECT count(*) FROM feedback WHERE id = 'fb-undated' AND year IS NULL AND month IS NULL`,
        ),
      ).toBe(1);
    } finally {
      close();
    }
  });

  it('declares the columns and types the export wrote into each manifest', () => {
    expectManifestsMatch(lake);
  });

  it('reads only the files the manifest names: a leftover file in a partition is not read', async () => {
    const manifest = JSON.parse(
      readFileSync(join(lake, 'site_daily', '_manifest.json'), 'utf8'),
    ) as TableManifest;
    const named = manifest.files[0]!;
    // What a killed export leaves: a whole file under a name no manifest gives.
    const leftover = join(lake, dirname(named.key), 'data_0-00000000deadbeef.parquet');
    copyFileSync(join(lake, named.key), leftover);
    const { c, close } = await mounted(await ddl([]));
    try {
      const site = tables.find((t) => t.table === 'site_daily')!;
      const want = await scalar(c, 'SELECT count(*) FROM src.site_daily');
      const glob = join(globLiteral(lake), 'site_daily', '*', '*', '*', '*.parquet').replaceAll("'", "''");
      // The partitions as they stand hold the leftover's rows twice...
      expect(await scalar(c, `SELECT count(*) FROM read_parquet('${glob}')`)).toBe(want + named.rows);
      // ...the view reads the manifest's snapshot only.
      expect(await scalar(c, 'SELECT count(*) FROM site_daily')).toBe(want);
      const view = `SELECT ${columnsOf(site).join(', ')} FROM main.site_daily`;
      expect(await scalar(c, `SELECT count(*) FROM (${view} EXCEPT ALL ${sourceSelect(site)})`)).toBe(0);
    } finally {
      close();
    }
  });

  it('leaves the personal columns out unless --include-personal-data, as the export does', async () => {
    const plain = (await ddl([])).join('\n');
    expect(plain).not.toMatch(/"(anon_id|session_id|user_id|properties|contact)"/);
    const personal = (await ddl(['--include-personal-data'])).join('\n');
    for (const c of ['anon_id', 'session_id', 'user_id', 'properties', 'contact'])
      expect(personal).toContain(`"${c}"`);
  });
});

describe('export --ddl: what it refuses (exit 2, one line)', () => {
  it.each([
    ['without --to', ['export', '--ddl', 'athena'], /--ddl athena needs --to s3:\/\/BUCKET\/PREFIX/],
    ['with a day as --to', ['export', '--ddl', 'duckdb', '--to', '2026-03-01'], /--ddl duckdb needs --to/],
    ['an unknown engine', ['export', '--ddl', 'oracle', '--to', 's3://lake/x'], /'oracle' is invalid/],
    [
      'with --format',
      ['export', '--ddl', 'athena', '--to', 's3://lake/x', '--format', 'parquet'],
      /--format does not apply/,
    ],
    [
      'with --out',
      ['export', '--ddl', 'athena', '--to', 's3://lake/x', '--out', 'exports'],
      /not an --out folder/,
    ],
    [
      'a folder for athena',
      ['export', '--ddl', 'athena', '--to', './lake'],
      /--ddl athena needs --to s3:\/\/BUCKET\/PREFIX/,
    ],
    [
      'a * for bigquery',
      ['export', '--ddl', 'bigquery', '--to', 's3://lake/x*y'],
      /holds \*, which bigquery/,
    ],
    ['a backslash for duckdb', ['export', '--ddl', 'duckdb', '--to', 'a\\b'], /holds \\, which duckdb/],
  ])('%s', async (_what, args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')[0]).toMatch(message);
  });

  it('prints one ;-terminated statement per table, and with --json the same as a JSON list', async () => {
    const text = await runCli(['export', '--ddl', 'bigquery', '--to', 's3://lake/warehouse']);
    expect(text.code).toBe(0);
    const json = await runCli(['export', '--ddl', 'bigquery', '--to', 's3://lake/warehouse', '--json']);
    const list = JSON.parse(json.stdout) as string[];
    expect(list).toHaveLength(tables.length);
    for (const s of list) expect(s.endsWith(';')).toBe(true);
    expect(text.stdout).toBe(`${list.join('\n\n')}\n`);
  });
});

describe.skipIf(!hasPostgres())('export --ddl duckdb over a lake a PostgreSQL destination exported', () => {
  let server: PostgresServer | undefined;
  let pgUrl = '';

  beforeAll(async () => {
    server = await startPostgres();
    pgUrl = server.url;
    await copyDuckFileToPostgres(
      dbFile,
      pgUrl,
      'ddl',
      tables.map((t) => t.table),
    );
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('declares the types its files have, and gives back the same rows', async () => {
    const pgLake = join(dir, 'pg lake');
    const run = await runCli([
      'export',
      '--db',
      pgUrl,
      '--schema',
      'ddl',
      '--to',
      pgLake,
      '--include-personal-data',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expectManifestsMatch(pgLake);
    const { c, close } = await mounted(await ddl(['--include-personal-data'], pgLake));
    try {
      // The copy helper carries a JSON value into jsonb as a JSON string: the DuckDB test compares it.
      await expectSourceRows(c, new Set(['analytics_events.properties']));
    } finally {
      close();
    }
  });
});
