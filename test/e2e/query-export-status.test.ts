import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { CLI, runCli } from '../helpers/cli.js';

const PATHS = ['/docs/intro', '/say "hi", then\nleave', '/文档/快速开始'];
let dir: string;
let dbFile: string;

/**
 * Two projects, three days in two months, page paths with quotes, commas, a newline and CJK; a
 * second stream (searches) for docs-a with a day cut short by --max-pages and a deferred day.
 */
async function buildFixture(): Promise<void> {
  const db = await openDatabase(dbFile);
  try {
    const days = ['2026-02-27', '2026-02-28', '2026-03-02'];
    for (const [d, day] of days.entries()) {
      for (const project of ['docs-a', 'docs-b']) {
        const base = project === 'docs-a' ? 100 : 7;
        await db.connection.run(
          `INSERT INTO site_daily VALUES ($1, $2::DATE, $3, $4, $5, false, TIMESTAMPTZ '2026-03-03 02:00:00+00', 'r1')`,
          [project, day, base + d, d, base + d + 2],
        );
        await db.connection.run(
          `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id, error) VALUES ($1, 'visitors', $2::DATE, $2::DATE + 1, 'loaded', 1, 3, $3, 1, TIMESTAMPTZ '2026-03-03 02:00:00+00', 'r1', NULL)`,
          [project, day, base + d + 2],
        );
        if (project === 'docs-a') await insertSearchDay(db, day, d);
        for (const [i, path] of PATHS.entries()) {
          await db.connection.run('INSERT INTO page_daily VALUES ($1, $2::DATE, $3, $4, $5, $6)', [
            project,
            day,
            path,
            base + i,
            i,
            base + 2 * i,
          ]);
        }
      }
    }
    await db.connection.run(
      `INSERT INTO sync_runs (run_id, project_ids, started_at, finished_at, status, windows_planned, windows_loaded, requests)
       VALUES ('r1', ['docs-a', 'docs-b'], TIMESTAMPTZ '2026-03-03 02:00:00+00', TIMESTAMPTZ '2026-03-03 02:00:42+00', 'incomplete', 6, 6, 6)`,
    );
    await db.connection.run(
      "UPDATE sync_runs SET deferred_days = ['docs-a:searches:2026-03-03'], streams = ['visitors', 'searches']",
    );
  } finally {
    db.close();
  }
}

/** One day of the searches stream: its window (2026-02-28 truncated), two terms and the day's total. */
async function insertSearchDay(db: Database, day: string, d: number): Promise<void> {
  await db.connection.run(
    `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated, attempts, fetched_at, run_id)
     VALUES ('docs-a', 'searches', $1::DATE, $1::DATE + 1, 'loaded', 1, 2, $2::BOOLEAN, 1, TIMESTAMPTZ '2026-03-03 02:00:00+00', 'r1')`,
    [day, day === '2026-02-28' ? 'true' : 'false'],
  );
  for (const [i, query] of ['install', 'say "hi", then\nleave'].entries()) {
    await db.connection.run(
      "INSERT INTO search_daily VALUES ('docs-a', $1::DATE, $2, $3, 0.5, $4, TIMESTAMPTZ '2026-03-03 01:00:00+00')",
      [day, query, 10 + d + i, PATHS[i] ?? null],
    );
  }
  await db.connection.run("INSERT INTO search_totals_daily VALUES ('docs-a', $1::DATE, $2, 2, false)", [
    day,
    30 + d,
  ]);
}

async function readBack(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    return await queryRows(conn, sql);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function tableRows(sql: string): Promise<Record<string, unknown>[]> {
  const db = await openDatabase(dbFile, { readOnly: true });
  try {
    return await queryRows(db.connection, sql);
  } finally {
    db.close();
  }
}

const cli = (args: string[]) => runCli(args, { MINTLIFY_ETL_DB: dbFile });

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-e2e-'));
  dbFile = join(dir, 'analytics.duckdb');
  await buildFixture();
});

// Each test starts its own read-only process: they may run side by side.
describe.concurrent('mintlify-etl query', () => {
  it('prints an aligned table with right-aligned numbers and a row count', async () => {
    const r = await cli([
      'query',
      "SELECT project_id, day, total FROM site_daily WHERE day < '2026-03-01' ORDER BY ALL",
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'project_id  day         total',
        '----------  ----------  -----',
        'docs-a      2026-02-27    102',
        'docs-a      2026-02-28    103',
        'docs-b      2026-02-27      9',
        'docs-b      2026-02-28     10',
        '(4 rows)',
        '',
      ].join('\n'),
    );
  });

  it('shows the first 10,000 rows of a big result as a table and says the result has more', async () => {
    const r = await cli(['query', 'SELECT range AS n FROM range(5000000)']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2 + 10_000 + 1);
    expect(lines.at(-2)?.trim()).toBe('9999');
    expect(lines.at(-1)).toBe(
      '(the first 10000 rows; the result has more: add a LIMIT, or use --format csv or jsonl, which stream every row)',
    );
  });

  it('streams every row of a large result as jsonl and csv', async () => {
    for (const format of ['jsonl', 'csv']) {
      const r = await cli(['query', 'SELECT range AS n FROM range(1000000)', '--format', format]);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1_000_000 + (format === 'csv' ? 1 : 0));
      expect(lines.at(-1)).toBe(format === 'csv' ? '999999' : '{"n":999999}');
    }
  });

  it('writes RFC 4180 CSV with quoted quotes, commas and newlines', async () => {
    const r = await cli([
      'query',
      "SELECT path, human, total FROM page_daily WHERE project_id = 'docs-b' AND day = '2026-03-02' ORDER BY path",
      '--format',
      'csv',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'path,human,total\n/docs/intro,7,7\n"/say ""hi"", then\nleave",8,9\n/文档/快速开始,9,11\n',
    );
  });

  it('writes JSON with safe integers as numbers, larger ones as strings, days and lists as JSON', async () => {
    const r = await cli([
      'query',
      `SELECT day, total, 9007199254740993::BIGINT AS big, list(path ORDER BY path) AS paths,
              TIMESTAMPTZ '2026-03-03 02:00:00+00' AS loaded
       FROM page_daily WHERE project_id = 'docs-a' AND day = '2026-02-27' GROUP BY day, total ORDER BY total`,
      '--format',
      'json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        day: '2026-02-27',
        total: 100,
        big: '9007199254740993',
        paths: ['/docs/intro'],
        loaded: '2026-03-03T02:00:00.000Z',
      },
      {
        day: '2026-02-27',
        total: 102,
        big: '9007199254740993',
        paths: ['/say "hi", then\nleave'],
        loaded: '2026-03-03T02:00:00.000Z',
      },
      {
        day: '2026-02-27',
        total: 104,
        big: '9007199254740993',
        paths: ['/文档/快速开始'],
        loaded: '2026-03-03T02:00:00.000Z',
      },
    ]);
  });

  it("exits 2 with DuckDB's message on one line for a SQL error", async () => {
    const r = await cli(['query', 'SELEC 1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mintlify-etl: Parser Error: syntax error at or near "SELEC"\n');
  });

  it('refuses writes because the database is opened read-only', async () => {
    const r = await cli(['query', 'CREATE TABLE t (a INTEGER)']);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/read-only/);
  });

  it.each([
    ['COPY over the database file', (f: string) => `COPY (SELECT 1 AS a) TO '${f}' (FORMAT csv)`],
    [
      'COPY over the database file in place',
      (f: string) => `COPY (SELECT 'x') TO '${f}' (FORMAT csv, USE_TMP_FILE false)`,
    ],
    ['COPY onto the database WAL', (f: string) => `COPY (SELECT 'x') TO '${f}.wal' (FORMAT csv)`],
    [
      'file logging (which aborted DuckDB natively)',
      () => "CALL enable_logging(storage='file', storage_path='/tmp/mintlify-etl-query-log'); SELECT 1",
    ],
    ['COPY to a new file', (f: string) => `COPY (SELECT 1 AS a) TO '${f}.csv'`],
    ['ATTACH read-write', (f: string) => `ATTACH '${f}.other' AS other`],
    ['EXPORT DATABASE', (f: string) => `EXPORT DATABASE '${f}.export'`],
    ['read_csv of another file', () => `SELECT * FROM read_csv('/etc/hostname')`],
    ['INSTALL', () => 'INSTALL httpfs'],
    ['turning file access back on', () => 'SET enable_external_access = true'],
  ])('refuses %s: the database and the file system stay as they were (exit 2)', async (_what, sql) => {
    const before = readFileSync(dbFile);
    const r = await cli(['query', sql(dbFile)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/query is read-only/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(readFileSync(dbFile).equals(before)).toBe(true);
    for (const ext of ['.csv', '.other', '.export', '.wal'])
      expect(existsSync(`${dbFile}${ext}`)).toBe(false);
    expect(existsSync('/tmp/mintlify-etl-query-log')).toBe(false);
    const q = await cli(['query', '--format', 'csv', 'SELECT count(*) AS n FROM site_daily']);
    expect(q.stdout).toBe('n\n6\n');
  });
});

describe('a missing database', () => {
  it('makes query, status and export exit 2 telling to run sync first, creating nothing', async () => {
    const missing = join(dir, 'nothing-here.duckdb');
    const runs = await Promise.all(
      [['query', 'SELECT 1'], ['status'], ['export', '--out', join(dir, 'never')]].map((args) =>
        runCli([...args, '--db', missing]),
      ),
    );
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^mintlify-etl: no database at .*nothing-here\.duckdb: run `mintlify-etl sync` first/,
      );
    }
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});

describe('mintlify-etl export', () => {
  it('writes Parquet partitions that read back equal to the tables, twice without duplicates', async () => {
    const out = join(dir, 'export');
    const first = await cli(['export', '--out', out]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/page_daily\s+18 row\(s\) in 4 file\(s\), 4 partition\(s\)/);
    const second = await cli(['export', '--out', out, '--json']);
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout) as { tables: { table: string; rows: number; files: number }[] };
    expect(summary.tables.map((t) => [t.table, t.rows, t.files])).toEqual([
      ['site_daily', 6, 4],
      ['page_daily', 18, 4],
      ['search_daily', 6, 2],
      ['search_totals_daily', 3, 2],
    ]);
    expect(readdirSync(join(out, 'page_daily', 'project_id=docs-a', 'year=2026')).sort()).toEqual([
      'month=02',
      'month=03',
    ]);

    const glob = join(out, 'page_daily', '**', '*.parquet');
    const exported = await readBack(
      `SELECT project_id, day, path, human, ai, total FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY ALL`,
    );
    expect(exported).toHaveLength(18);
    expect(exported).toEqual(
      await tableRows('SELECT project_id, day, path, human, ai, total FROM page_daily ORDER BY ALL'),
    );
    const site = await readBack(
      `SELECT project_id, day, human, ai, total, partial FROM read_parquet('${join(out, 'site_daily', '**', '*.parquet')}', hive_partitioning = true) ORDER BY ALL`,
    );
    expect(site).toEqual(
      await tableRows('SELECT project_id, day, human, ai, total, partial FROM site_daily ORDER BY ALL'),
    );
    const cols = 'project_id, day, query, hits, ctr, top_clicked_path, last_searched_at';
    const search = await readBack(
      `SELECT ${cols} FROM read_parquet('${join(out, 'search_daily', '**', '*.parquet')}', hive_partitioning = true) ORDER BY ALL`,
    );
    expect(search).toHaveLength(6);
    expect(search).toEqual(await tableRows(`SELECT ${cols} FROM search_daily ORDER BY ALL`));
    // Tables without rows, of streams never synced, get no folder.
    expect(readdirSync(out).sort()).toEqual([
      '.mintlify-etl-export.json',
      'page_daily',
      'search_daily',
      'search_totals_daily',
      'site_daily',
    ]);
  });

  it("refuses an OUT where a stream table's folder would hold the database, touching nothing", async () => {
    const out = join(dir, 'refused');
    const inside = join(out, 'search_daily', 'analytics.duckdb');
    const r = await runCli(['export', '--out', out, '--db', inside]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/would write where the database/);
    expect(existsSync(out)).toBe(false);
  });
});

describe.concurrent('mintlify-etl status', () => {
  it('--json gives coverage, runs and the budget as one object', async () => {
    const r = await cli(['status', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as {
      projects: {
        projectId: string;
        coverage: Record<string, unknown>;
        runs: { runId: string; durationMs: number }[];
      }[];
      budget: { spent: number; limit: number; remaining: number };
    };
    expect(s.projects.map((p) => p.projectId)).toEqual(['docs-a', 'docs-b']);
    expect(s.projects[0]?.coverage).toMatchObject({
      firstDay: '2026-02-27',
      lastDay: '2026-03-02',
      daysLoaded: 3,
      daysMissing: 1,
      missingDays: ['2026-03-01'],
    });
    expect(s.projects[0]?.runs.map((x) => [x.runId, x.durationMs])).toEqual([['r1', 42_000]]);
    expect(s.budget).toMatchObject({ spent: 0, limit: 100, remaining: 100 });
  });

  it('--project shows only that project, as report and gaps take it; an unknown one is exit 2 naming those held', async () => {
    const r = await cli(['status', '--project', 'docs-b', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      (JSON.parse(r.stdout) as { projects: { projectId: string }[] }).projects.map((p) => p.projectId),
    ).toEqual(['docs-b']);
    const text = await cli(['status', '-p', 'docs-a']);
    expect(text.stdout).toContain('docs-a');
    expect(text.stdout).not.toContain('docs-b');
    const unknown = await cli(['status', '--project', 'docs-z']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no data for project "docs-z" in .*; it holds: docs-a, docs-b/);
  });

  it('prints a readable summary', async () => {
    const r = await cli(['status', '--rate-limit', '40/10m']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('budget: 0/40 spent in the last 10 minutes, all 40 free');
    expect(r.stdout).toContain(
      'coverage  visitors  2026-02-27 to 2026-03-02: 3 days loaded, 1 day missing: 2026-03-01',
    );
  });

  it('prints a coverage line per stream, with its truncated and deferred days', async () => {
    const r = await cli(['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        'project docs-a',
        '  coverage  visitors  2026-02-27 to 2026-03-02: 3 days loaded, 1 day missing: 2026-03-01',
        '            searches  2026-02-27 to 2026-03-02: 3 days loaded, 1 day missing: 2026-03-01',
        '  truncated searches  1 day cut short (--max-pages, or an endpoint that cannot page further): 2026-02-28',
        '  deferred  searches  1 day pending: 2026-03-03',
        '',
      ].join('\n'),
    );
  });

  it('--json lists each stream of a project, and keeps the visitors stream at the top level', async () => {
    const r = await cli(['status', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as {
      projects: { projectId: string; coverage: unknown; deferredDays: string[]; streams: unknown[] }[];
    };
    const a = s.projects[0];
    expect(a?.streams).toEqual([
      {
        stream: 'visitors',
        coverage: a?.coverage,
        partialDays: [],
        truncatedDays: [],
        failedDays: [],
        deferredDays: [],
      },
      {
        stream: 'searches',
        coverage: {
          firstDay: '2026-02-27',
          lastDay: '2026-03-02',
          daysLoaded: 3,
          daysMissing: 1,
          missingDays: ['2026-03-01'],
          lastLoadedAt: expect.stringMatching(/^2026-03-03T02:00:00/) as unknown,
        },
        partialDays: [],
        truncatedDays: ['2026-02-28'],
        failedDays: [],
        deferredDays: ['2026-03-03'],
      },
    ]);
    expect(a?.deferredDays).toEqual([]);
    expect(s.projects[1]?.streams.map((x) => (x as { stream: string }).stream)).toEqual(['visitors']);
  });
});
