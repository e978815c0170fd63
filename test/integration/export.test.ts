import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/load/duckdb/database.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { describeExport } from '../../src/cli/export-action.js';
import { EXPORT_TABLES, monthChunks, monthRange, type TableSpec } from '../../src/load/export-plan.js';
import { exportTables } from '../../src/load/duckdb/export.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { STREAMS } from '../../src/streams/index.js';

const ODD_PATHS = ['/docs/intro', '/文档/快速开始', '/say "hi", then\nleave', "/it's/ünïcode 🚀", '/a,b'];

let dir: string;
let dbFile: string;
let reader: DuckDBInstance;

const withDb = <T>(fn: (db: Database) => Promise<T>, readOnly = false): Promise<T> =>
  withDuckFile(dbFile, fn, readOnly);

/** Inserts page rows for every odd path on each day, and one site row per day (two statements). */
async function insertDays(db: Database, projectId: string, days: readonly string[], base = 1): Promise<void> {
  const site: (string | number)[] = [];
  const pages: (string | number)[] = [];
  for (const [d, day] of days.entries()) {
    site.push(projectId, day, base + d, d, base + d + 1);
    for (const [i, path] of ODD_PATHS.entries())
      pages.push(projectId, day, path, base * 10 + i, i, base * 10 + 2 * i);
  }
  const tuples = (count: number, width: number, row: (p: (k: number) => string) => string): string =>
    Array.from({ length: count }, (_, r) => row((k) => `$${r * width + k}`)).join(', ');
  await db.connection.run(
    `INSERT INTO site_daily VALUES ${tuples(days.length, 5, (p) => `(${p(1)}, ${p(2)}::DATE, ${p(3)}, ${p(4)}, ${p(5)}, false, TIMESTAMPTZ '2026-04-01 00:00:00+00', 'run-1')`)}`,
    site,
  );
  await db.connection.run(
    `INSERT INTO page_daily VALUES ${tuples(pages.length / 6, 6, (p) => `(${p(1)}, ${p(2)}::DATE, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)})`)}`,
    pages,
  );
}

async function tableRows(table: 'site_daily' | 'page_daily'): Promise<Record<string, unknown>[]> {
  const cols =
    table === 'page_daily'
      ? 'project_id, day, path, human, ai, total'
      : 'project_id, day, human, ai, total, partial';
  return withDb(
    (db) =>
      queryRows(
        db.connection,
        `SELECT ${cols} FROM ${table} ORDER BY project_id, day${table === 'page_daily' ? ', path' : ''}`,
      ),
    true,
  );
}

async function exportedRows(
  out: string,
  table: 'site_daily' | 'page_daily',
  format: 'parquet' | 'csv' = 'parquet',
): Promise<Record<string, unknown>[]> {
  const cols =
    table === 'page_daily'
      ? 'project_id, day, path, human, ai, total'
      : 'project_id, day, human, ai, total, partial';
  const glob = join(out, table, '**', `*.${format}`).replaceAll("'", "''");
  const source =
    format === 'parquet'
      ? `read_parquet('${glob}', hive_partitioning = true)`
      : `read_csv('${glob}', hive_partitioning = true, header = true, types = {${table === 'page_daily' ? "'path': 'VARCHAR', " : ''}'day': 'DATE'})`;
  const conn = await reader.connect();
  try {
    return await queryRows(
      conn,
      `SELECT ${cols} FROM ${source} ORDER BY project_id, day${table === 'page_daily' ? ', path' : ''}`,
    );
  } finally {
    conn.closeSync();
  }
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

function exportTo(
  out: string,
  opts: { format?: 'parquet' | 'csv'; from?: string; to?: string; chunkRows?: number } = {},
) {
  return withDb(
    (db) =>
      exportTables(db.connection, {
        outDir: out,
        format: opts.format ?? 'parquet',
        from: opts.from,
        to: opts.to,
        chunkRows: opts.chunkRows,
      }),
    true,
  );
}

const JAN = ['2026-01-30', '2026-01-31'];
const FEB = ['2026-02-01', '2026-02-14', '2026-02-28'];
const MAR = ['2026-03-01'];

/** The database every test starts from, made (created, migrated, filled) once for the file. */
let template: string;

beforeAll(async () => {
  reader = await DuckDBInstance.create(':memory:');
  template = join(mkdtempSync(join(tmpdir(), 'mintlify-etl-export-template-')), 'analytics.duckdb');
  await withDuckFile(template, async (db) => {
    await insertDays(db, 'docs-a', [...JAN, ...FEB, ...MAR]);
    await insertDays(db, 'docs-b', FEB, 100);
  });
  // Closed cleanly, the file holds everything: no write-ahead log to copy along.
  expect(existsSync(`${template}.wal`)).toBe(false);
});
afterAll(() => {
  reader.closeSync();
  rmSync(dirname(template), { recursive: true, force: true });
});

// A copy of the template per test: each test may write to its file, none sees another's.
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-export-'));
  dbFile = join(dir, 'analytics.duckdb');
  copyFileSync(template, dbFile);
});

describe('exportTables', () => {
  it('writes hive partitions per project, year and two-digit month that read back equal to the tables', async () => {
    const out = join(dir, 'out');
    const summary = await exportTo(out);

    expect(await filesUnder(join(out, 'page_daily'))).toEqual([
      join('project_id=docs-a', 'year=2026', 'month=01', 'data_0.parquet'),
      join('project_id=docs-a', 'year=2026', 'month=02', 'data_0.parquet'),
      join('project_id=docs-a', 'year=2026', 'month=03', 'data_0.parquet'),
      join('project_id=docs-b', 'year=2026', 'month=02', 'data_0.parquet'),
    ]);
    expect(await exportedRows(out, 'page_daily')).toEqual(await tableRows('page_daily'));
    expect(await exportedRows(out, 'site_daily')).toEqual(await tableRows('site_daily'));
    expect(summary.tables.map((t) => [t.table, t.rows, t.files, t.partitions, t.removedFiles])).toEqual([
      ['site_daily', 9, 4, 4, 0],
      ['page_daily', 45, 4, 4, 0],
    ]);
    expect(summary.range).toBeNull();
    // The staging folder is gone.
    expect(readdirSync(out).sort()).toEqual(['.mintlify-etl-export.json', 'page_daily', 'site_daily']);
  });

  it('keeps paths with quotes, commas, newlines and unicode exactly', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const paths = new Set((await exportedRows(out, 'page_daily')).map((r) => r['path']));
    expect([...paths].sort()).toEqual([...ODD_PATHS].sort());
  });

  it('exported twice over the same folder gives the same files and no duplicate rows', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const first = await filesUnder(out);
    await exportTo(out);
    expect(await filesUnder(out)).toEqual(first);
    const rows = await exportedRows(out, 'page_daily');
    expect(rows).toHaveLength(45);
    expect(rows).toEqual(await tableRows('page_daily'));
  });

  it('deletes the files of a month that no longer has data on a full export', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    await withDb(async (db) => {
      await db.connection.run("DELETE FROM page_daily WHERE project_id = 'docs-b'");
      await db.connection.run("DELETE FROM site_daily WHERE project_id = 'docs-b'");
    });
    const summary = await exportTo(out);
    expect(summary.tables.map((t) => t.removedFiles)).toEqual([1, 1]);
    expect(readdirSync(join(out, 'page_daily'))).toEqual(['project_id=docs-a']);
    expect(await exportedRows(out, 'page_daily')).toEqual(await tableRows('page_daily'));
  });

  it('with --from/--to rewrites the whole months touched and leaves other months alone', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const janFile = join(out, 'page_daily', 'project_id=docs-a', 'year=2026', 'month=01', 'data_0.parquet');
    const janBefore = statSync(janFile).mtimeMs;
    await withDb(async (db) => {
      // February changes, January changes too (but is outside the range), docs-b loses February.
      await db.connection.run('UPDATE page_daily SET total = total + 1000 WHERE month(day) IN (1, 2)');
      await db.connection.run("DELETE FROM page_daily WHERE project_id = 'docs-b'");
    });
    const summary = await exportTo(out, { from: '2026-02-14', to: '2026-02-15' });
    expect(summary.range).toEqual({ from: '2026-02-01', to: '2026-03-01' });

    const rows = await exportedRows(out, 'page_daily');
    const now = await tableRows('page_daily');
    // February: every day of the month, as the table has it now (not only 02-14).
    expect(rows.filter((r) => String(r['day']).startsWith('2026-02'))).toEqual(
      now.filter((r) => String(r['day']).startsWith('2026-02')),
    );
    expect(rows.filter((r) => String(r['day']).startsWith('2026-02'))).toHaveLength(15);
    // January: the old file, untouched.
    expect(statSync(janFile).mtimeMs).toBe(janBefore);
    expect(
      rows
        .filter((r) => r['day'] === '2026-01-30')
        .map((r) => Number(r['total']))
        .sort((a, b) => a - b),
    ).toEqual([10, 12, 14, 16, 18]);
    expect(readdirSync(join(out, 'page_daily'))).toEqual(['project_id=docs-a']);
  });

  it('files a day under its calendar year: 2027-01-01 (ISO week-year 2026) lands in year=2027/month=01', async () => {
    await withDb((db) => insertDays(db, 'docs-c', ['2027-01-01']));
    const out = join(dir, 'out');
    await exportTo(out);
    for (const table of ['site_daily', 'page_daily'] as const) {
      expect(await filesUnder(join(out, table, 'project_id=docs-c'))).toEqual([
        join('year=2027', 'month=01', 'data_0.parquet'),
      ]);
    }
    const rows = await exportedRows(out, 'page_daily');
    expect(rows.filter((r) => r['project_id'] === 'docs-c')).toEqual(
      (await tableRows('page_daily')).filter((r) => r['project_id'] === 'docs-c'),
    );
  });

  it('with --from/--to leaves the months before and after the range byte for byte, removing none of them', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const outside = ['site_daily', 'page_daily'].flatMap((table) =>
      ['01', '03'].map((month) =>
        join(out, table, 'project_id=docs-a', 'year=2026', `month=${month}`, 'data_0.parquet'),
      ),
    );
    const before = outside.map((f) => ({ f, mtime: statSync(f).mtimeMs, bytes: readFileSync(f) }));
    // February only: --to is exclusive, so 2026-03-01 must not bring March into scope.
    const summary = await exportTo(out, { from: '2026-02-01', to: '2026-03-01' });
    expect(summary.range).toEqual({ from: '2026-02-01', to: '2026-03-01' });
    expect(summary.tables.map((t) => [t.table, t.files, t.removedFiles])).toEqual([
      ['site_daily', 2, 0],
      ['page_daily', 2, 0],
    ]);
    for (const { f, mtime, bytes } of before) {
      expect(existsSync(f), f).toBe(true);
      expect(statSync(f).mtimeMs, f).toBe(mtime);
      expect(readFileSync(f).equals(bytes), f).toBe(true);
    }
  });

  it('writes CSV partitions with a header that read back equal to the tables', async () => {
    const out = join(dir, 'csv');
    await exportTo(out, { format: 'csv' });
    await exportTo(out, { format: 'csv' });
    expect(await filesUnder(join(out, 'site_daily'))).toContain(
      join('project_id=docs-b', 'year=2026', 'month=02', 'data_0.csv'),
    );
    expect(await exportedRows(out, 'page_daily', 'csv')).toEqual(await tableRows('page_daily'));
    expect(await exportedRows(out, 'site_daily', 'csv')).toEqual(await tableRows('site_daily'));
  });

  it('writes no files for an empty database', async () => {
    await withDb(async (db) => {
      await db.connection.run('DELETE FROM page_daily');
      await db.connection.run('DELETE FROM site_daily');
    });
    const out = join(dir, 'empty');
    const summary = await exportTo(out);
    expect(summary.tables.map((t) => [t.rows, t.files])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    // Only the manifest that marks the folder as an export.
    expect(await filesUnder(out)).toEqual(['.mintlify-etl-export.json']);
  });
});

/** Every file under root with its bytes: what "unchanged" means for an export folder. */
async function contents(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of await filesUnder(root)) out[rel] = readFileSync(join(root, rel)).toString('base64');
  return out;
}

/** The connection, except that writing page_daily fails as it would on a full disk. */
function failingOnPageDaily(conn: DuckDBConnection): DuckDBConnection {
  return failingOn(conn, 'page_daily');
}

/** The connection, except that writing `table` fails as it would on a full disk. */
function failingOn(conn: DuckDBConnection, table: string): DuckDBConnection {
  return new Proxy(conn, {
    get(target, prop, receiver) {
      if (prop !== 'run') return Reflect.get(target, prop, receiver) as unknown;
      return (sql: string, ...rest: unknown[]) => {
        if (sql.startsWith('COPY') && sql.includes(`FROM ${table} `))
          return Promise.reject(new Error('IO Error: No space left on device'));
        return (target.run as (...a: unknown[]) => unknown).call(target, sql, ...rest);
      };
    },
  });
}

/** The pid of a process that has exited: a killed export's. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

describe('exportTables is all or nothing', () => {
  it('leaves every table as it was when writing the second table fails', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const before = await contents(out);
    await withDb(async (db) => {
      await db.connection.run('UPDATE site_daily SET total = total + 1000');
      await db.connection.run('UPDATE page_daily SET total = total + 1000');
    });
    await expect(
      withDb(
        (db) => exportTables(failingOnPageDaily(db.connection), { outDir: out, format: 'parquet' }),
        true,
      ),
    ).rejects.toThrow(/No space left/);
    expect(await contents(out)).toEqual(before);
    expect(readdirSync(out).sort()).toEqual(['.mintlify-etl-export.json', 'page_daily', 'site_daily']);
  });

  it("removes the staging folder a killed export left behind, and keeps a running one's", async () => {
    const out = join(dir, 'out');
    const killed = join(out, `.export-${await deadPid()}-AbC123`);
    const older = join(out, '.export-XyZ789');
    const running = join(out, `.export-${process.ppid}-QwE456`);
    for (const d of [killed, older, running]) {
      mkdirSync(join(d, 'site_daily'), { recursive: true });
      writeFileSync(join(d, 'site_daily', 'half-written.parquet'), 'PAR1');
    }
    await exportTo(out);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(older)).toBe(false);
    expect(existsSync(running)).toBe(true);
  });
});

describe('export in chunks of whole months', () => {
  /** What one partitioned COPY of the whole table writes: the layout before chunking. */
  async function onePartitionedCopy(out: string, format: 'parquet' | 'csv'): Promise<string[]> {
    mkdirSync(out, { recursive: true });
    await withDb(async (db) => {
      await db.connection.run(
        `COPY (SELECT project_id, day, path, human, ai, total, year(day) AS year, strftime(day, '%m') AS month FROM page_daily ORDER BY project_id, day, path)
          TO '${join(out, 'page_daily').replaceAll("'", "''")}' (FORMAT ${format}${format === 'csv' ? ', HEADER true' : ''}, PARTITION_BY (project_id, year, month), FILENAME_PATTERN 'data_{i}')`,
      );
    }, true);
    return filesUnder(join(out, 'page_daily'));
  }

  for (const format of ['parquet', 'csv'] as const) {
    for (const chunkRows of [1, 20, 1_000_000]) {
      it(`${format}, at most ${chunkRows} rows a statement: the files of one partitioned COPY, reading back equal`, async () => {
        const out = join(dir, `out-${format}-${chunkRows}`);
        const summary = await exportTo(out, { format, chunkRows });
        expect(await filesUnder(join(out, 'page_daily'))).toEqual(
          await onePartitionedCopy(join(dir, `ref-${format}-${chunkRows}`), format),
        );
        expect(await exportedRows(out, 'page_daily', format)).toEqual(await tableRows('page_daily'));
        expect(summary.tables.find((t) => t.table === 'page_daily')?.rows).toBe(45);
      });
    }
  }

  it('a project id DuckDB must encode in a folder name gets the folder PARTITION_BY gives it', async () => {
    const odd = 'docs c/ü=1 %';
    await withDb((db) => insertDays(db, odd, [...JAN, ...FEB], 7));
    for (const chunkRows of [1, 1_000_000]) {
      const out = join(dir, `out-odd-${chunkRows}`);
      await exportTo(out, { chunkRows });
      expect(await filesUnder(join(out, 'page_daily'))).toEqual(
        await onePartitionedCopy(join(dir, `ref-odd-${chunkRows}`), 'parquet'),
      );
      expect(await exportedRows(out, 'page_daily')).toEqual(await tableRows('page_daily'));
    }
  });
});

describe('monthChunks', () => {
  it('groups consecutive whole months up to the row cap, never splitting one', () => {
    const months = [
      { month: '2026-03-01', rows: 50 },
      { month: '2026-01-01', rows: 100 },
      { month: '2026-02-01', rows: 100 },
      { month: '2026-05-01', rows: 500 },
    ];
    expect(monthChunks(months, 250)).toEqual([
      { from: '2026-01-01', to: '2026-04-01', months: 3 },
      { from: '2026-05-01', to: '2026-06-01', months: 1 },
    ]);
    expect(monthChunks(months, 1).map((c) => c.months)).toEqual([1, 1, 1, 1]);
    expect(monthChunks([], 10)).toEqual([]);
  });
});

describe('monthRange', () => {
  it('widens [from, to) to whole months, --to being exclusive', () => {
    expect(monthRange('2026-02-14', '2026-03-01')).toEqual({ from: '2026-02-01', to: '2026-03-01' });
    expect(monthRange('2026-02-14', '2026-03-02')).toEqual({ from: '2026-02-01', to: '2026-04-01' });
    expect(monthRange(undefined, '2027-01-01')).toEqual({ from: null, to: '2027-01-01' });
    expect(monthRange('2026-12-31', undefined)).toEqual({ from: '2026-12-01', to: null });
    expect(monthRange(undefined, undefined)).toBeNull();
  });
});

const QUERIES = ['install', 'api "key", v2\nnext line', '快速开始'];

/** Rows of every other stream's tables (feedback_page_daily stays empty, its stream never synced). */
async function insertStreamDays(db: Database, projectId: string, days: readonly string[]): Promise<void> {
  const run = (sql: string, params: (string | number | boolean | null)[]) => db.connection.run(sql, params);
  for (const [d, day] of days.entries()) {
    await run(
      `INSERT INTO site_views_daily VALUES ($1, $2::DATE, $3, 1, $3 + 1, $4, TIMESTAMPTZ '2026-04-01 00:00:00+00', 'run-1')`,
      [projectId, day, 20 + d, d === 0],
    );
    for (const [i, path] of ODD_PATHS.entries()) {
      await run('INSERT INTO page_views_daily VALUES ($1, $2::DATE, $3, $4, $5, $6)', [
        projectId,
        day,
        path,
        30 + i,
        i,
        30 + 2 * i,
      ]);
    }
    for (const [i, query] of QUERIES.entries()) {
      await run(`INSERT INTO search_daily VALUES ($1, $2::DATE, $3, $4, $5, $6, $7::TIMESTAMPTZ)`, [
        projectId,
        day,
        query,
        5 + i + d,
        i / 4,
        i === 0 ? null : (ODD_PATHS[i] ?? null),
        i === 2 ? null : `${day} 12:3${i}:00+00`,
      ]);
    }
    await run('INSERT INTO search_totals_daily VALUES ($1, $2::DATE, $3, 3, $4)', [
      projectId,
      day,
      40 + d,
      d === 1,
    ]);
    await run('INSERT INTO assistant_callers_daily VALUES ($1, $2::DATE, $3, 2, 1, $3 + 3)', [
      projectId,
      day,
      50 + d,
    ]);
  }
}

function specOf(table: string): TableSpec {
  const spec = EXPORT_TABLES.find((t) => t.table === table);
  if (!spec) throw new Error(`no export spec for ${table}`);
  return spec;
}

/** A table's exported rows read back with hive partitioning, and the same columns from the table. */
async function roundTrip(out: string, table: string): Promise<{ exported: unknown[]; stored: unknown[] }> {
  const spec = specOf(table);
  const cols = `project_id, ${spec.columns.join(', ')}`;
  const glob = join(out, table, '**', '*.parquet').replaceAll("'", "''");
  const conn = await reader.connect();
  try {
    const exported = await queryRows(
      conn,
      `SELECT ${cols} FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY ${spec.order}`,
    );
    const stored = await withDb(
      (db) => queryRows(db.connection, `SELECT ${cols} FROM ${table} ORDER BY ${spec.order}`),
      true,
    );
    return { exported, stored };
  } finally {
    conn.closeSync();
  }
}

/** The columns inside one data file (no hive partitioning): what a reader gets from the file itself. */
async function fileColumns(file: string): Promise<string[]> {
  const conn = await reader.connect();
  try {
    const rows = await queryRows(
      conn,
      `DESCRIBE SELECT * FROM read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)`,
    );
    return rows.map((r) => String(r['column_name']));
  } finally {
    conn.closeSync();
  }
}

const STREAM_TABLES = [
  'site_views_daily',
  'page_views_daily',
  'search_daily',
  'search_totals_daily',
  'assistant_callers_daily',
];

describe('exportTables with every stream', () => {
  beforeEach(async () => {
    await withDb(async (db) => {
      await insertStreamDays(db, 'docs-a', [...JAN, ...FEB, ...MAR]);
      await insertStreamDays(db, 'docs-b', FEB);
    });
  });

  it('writes every table holding rows, hive-partitioned, reading back equal to the table', async () => {
    const out = join(dir, 'out');
    const summary = await exportTo(out);
    expect(summary.tables.map((t) => [t.table, t.files])).toEqual(
      ['site_daily', 'page_daily', ...STREAM_TABLES].map((t) => [t, 4]),
    );
    for (const table of STREAM_TABLES) {
      const { exported, stored } = await roundTrip(out, table);
      expect(exported.length, table).toBeGreaterThan(0);
      expect(exported, table).toEqual(stored);
      expect(await filesUnder(join(out, table)), table).toContain(
        join('project_id=docs-b', 'year=2026', 'month=02', 'data_0.parquet'),
      );
    }
  });

  it('leaves project_id to the folder names and the bookkeeping columns out of the files', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const file = (table: string) =>
      join(out, table, 'project_id=docs-a', 'year=2026', 'month=02', 'data_0.parquet');
    expect(await fileColumns(file('site_views_daily'))).toEqual(['day', 'human', 'ai', 'total', 'partial']);
    expect(await fileColumns(file('search_daily'))).toEqual([
      'day',
      'query',
      'hits',
      'ctr',
      'top_clicked_path',
      'last_searched_at',
    ]);
  });

  it('skips a table without rows whose stream never loaded a day: no folder, listed as skipped', async () => {
    const out = join(dir, 'out');
    const summary = await exportTo(out);
    expect(summary.tables.map((t) => t.table)).not.toContain('feedback_page_daily');
    expect(summary.skipped).toEqual(
      ['feedback_page_daily', ...EVENT_TABLES, 'analytics_events'].map((table) => ({
        table,
        reason: 'empty',
      })),
    );
    expect(existsSync(join(out, 'feedback_page_daily'))).toBe(false);
  });

  it('exports a table without rows when its stream has loaded days (those days had no data)', async () => {
    await withDb((db) =>
      db.connection.run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, attempts, fetched_at, run_id)
         VALUES ('docs-a', 'feedback_by_page', DATE '2026-02-01', DATE '2026-02-02', 'loaded', 1, 0, 1, TIMESTAMPTZ '2026-02-03 00:00:00+00', 'run-1')`,
      ),
    );
    const summary = await exportTo(join(dir, 'out'));
    expect(summary.tables.find((t) => t.table === 'feedback_page_daily')).toMatchObject({
      rows: 0,
      files: 0,
    });
    expect(summary.skipped.map((t) => t.table)).not.toContain('feedback_page_daily');
  });

  it('exported again replaces the changed rows of every table and removes the files of emptied ones', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    await withDb(async (db) => {
      await db.connection.run('UPDATE search_daily SET hits = hits + 1000');
      await db.connection.run("DELETE FROM assistant_callers_daily WHERE project_id = 'docs-b'");
      await db.connection.run('DELETE FROM page_views_daily');
    });
    const summary = await exportTo(out);
    const search = await roundTrip(out, 'search_daily');
    expect(search.exported).toEqual(search.stored);
    expect(search.exported).toHaveLength(27);
    expect(readdirSync(join(out, 'assistant_callers_daily'))).toEqual(['project_id=docs-a']);
    // page_views_daily has no row left, but its old files are there: it is exported, to remove them.
    expect(summary.tables.find((t) => t.table === 'page_views_daily')).toMatchObject({
      rows: 0,
      removedFiles: 4,
    });
    expect(await filesUnder(join(out, 'page_views_daily'))).toEqual([]);
  });

  it('leaves every table as it was when writing a later stream table fails', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const before = await contents(out);
    await withDb((db) => db.connection.run('UPDATE site_views_daily SET total = total + 1000'));
    await expect(
      withDb(
        (db) =>
          exportTables(failingOn(db.connection, 'assistant_callers_daily'), {
            outDir: out,
            format: 'parquet',
          }),
        true,
      ),
    ).rejects.toThrow(/No space left/);
    expect(await contents(out)).toEqual(before);
  });
});

const EVENT_TABLES = [
  'feedback',
  'assistant_turns',
  'assistant_messages',
  'assistant_threads',
  'site_weekly',
  'page_weekly',
  'site_monthly',
  'page_monthly',
];

/** Rows of the event and period tables; the feedback holds readers' emails (contact). */
async function insertEventRows(db: Database): Promise<void> {
  const run = (sql: string) => db.connection.run(sql);
  const seen =
    "TIMESTAMPTZ '2026-03-02 00:00:00+00', TIMESTAMPTZ '2026-03-03 00:00:00+00', 'run-1', DATE '2026-01-01'";
  await run(`INSERT INTO feedback VALUES
    ('docs-a', 'f1', '/docs/intro', 'contextual', 'pending', 'nice', true, 'ann@example.com', NULL, NULL, NULL,
      TIMESTAMPTZ '2026-01-10 10:00:00+00', ${seen}),
    ('docs-a', 'f2', '/a,b', 'code_snippet', 'resolved', 'typo', NULL, NULL, 'npm i', 'x.sh', 'bash',
      TIMESTAMPTZ '2026-02-03 10:00:00+00', ${seen}),
    ('docs-a', 'f3', '/docs/intro', 'contextual', 'pending', 'no date', false, 'bob@example.com', NULL, NULL, NULL,
      NULL, ${seen})`);
  // 23:30 at UTC-5 on 01-31 is 04:30 UTC on 02-01: month 02.
  await run(`INSERT INTO assistant_turns VALUES
    ('docs-a', 't1', TIMESTAMPTZ '2026-01-31 23:30:00-05', 'how?', 'so', 'answer', 'answered', 'setup', NULL,
      [{'title': 'Intro', 'url': 'https://docs.example.com/docs/intro'}], TIMESTAMPTZ '2026-03-01 00:00:00+00', 'run-1', DATE '2026-01-26'),
    ('docs-a', 't1', TIMESTAMPTZ '2026-01-15 08:00:00+00', 'what?', 'that', 'clarifying_question', 'unanswered',
      NULL, '/docs/intro', [], TIMESTAMPTZ '2026-03-01 00:00:00+00', 'run-1', DATE '2026-01-12')`);
  await run(`INSERT INTO assistant_messages VALUES
    ('docs-a', 't1', 'm1', 0, 'user', 'what?', TIMESTAMPTZ '2026-01-15 08:00:00+00'),
    ('docs-a', 't1', 'm2', 1, 'assistant', 'that', TIMESTAMPTZ '2026-01-15 08:00:01+00')`);
  await run(`INSERT INTO assistant_threads VALUES
    ('docs-a', 't1', 'loaded', TIMESTAMPTZ '2026-01-15 08:00:00+00', 2, 2, TIMESTAMPTZ '2026-03-01 00:00:00+00', 'run-1')`);
  for (const grain of ['weekly', 'monthly']) {
    const start = grain === 'weekly' ? '2026-01-26' : '2026-02-01';
    await run(`INSERT INTO site_${grain} VALUES
      ('docs-a', DATE '${start}', 40, 10, 50, false, TIMESTAMPTZ '2026-03-01 00:00:00+00', 'run-1')`);
    await run(`INSERT INTO page_${grain} VALUES ('docs-a', DATE '${start}', '/docs/intro', 20, 5, 25)`);
  }
}

/** Every row of a table's exported Parquet files, read back with hive partitioning. */
async function readExported(out: string, table: string, orderBy: string): Promise<Record<string, unknown>[]> {
  const glob = join(out, table, '**', '*.parquet').replaceAll("'", "''");
  const conn = await reader.connect();
  try {
    return await queryRows(
      conn,
      `SELECT * FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY ${orderBy}`,
    );
  } finally {
    conn.closeSync();
  }
}

describe('the event and period tables', () => {
  beforeEach(() => withDb(insertEventRows));

  it('are exported, partitioned by the UTC month of their event time or period, reading back equal', async () => {
    const out = join(dir, 'out');
    const summary = await withDb(
      (db) => exportTables(db.connection, { outDir: out, format: 'parquet', includePersonalData: true }),
      true,
    );
    expect(
      summary.tables.filter((t) => EVENT_TABLES.includes(t.table)).map((t) => [t.table, t.rows]),
    ).toEqual([
      ['feedback', 3],
      ['assistant_turns', 2],
      ['assistant_messages', 2],
      ['assistant_threads', 1],
      ['site_weekly', 1],
      ['page_weekly', 1],
      ['site_monthly', 1],
      ['page_monthly', 1],
    ]);
    for (const table of EVENT_TABLES) {
      const { exported, stored } = await roundTrip(out, table);
      expect(exported, table).toEqual(stored);
    }
    const month = (y: string, m: string) =>
      join('project_id=docs-a', `year=${y}`, `month=${m}`, 'data_0.parquet');
    expect(await filesUnder(join(out, 'assistant_turns'))).toEqual([
      month('2026', '01'),
      month('2026', '02'),
    ]);
    expect(await filesUnder(join(out, 'site_weekly'))).toEqual([month('2026', '01')]);
    expect(await filesUnder(join(out, 'page_monthly'))).toEqual([month('2026', '02')]);
  });

  it('leave the feedback contact (an email) out by default, say so, and write it only when asked', async () => {
    const out = join(dir, 'out');
    const without = await exportTo(out);
    expect(without.tables.map((t) => t.table)).toContain('feedback');
    expect(without.skippedColumns).toEqual([{ table: 'feedback', columns: ['contact'], reason: 'personal' }]);
    expect(describeExport(without)).toMatch(
      /left out of feedback \(personal data, add --include-personal-data\): contact/,
    );
    const files = await filesUnder(join(out, 'feedback'));
    expect(files).toHaveLength(3);
    for (const file of files) {
      const columns = await fileColumns(join(out, 'feedback', file));
      expect(columns, file).not.toContain('contact');
      expect(columns, file).toContain('comment');
      expect(readFileSync(join(out, 'feedback', file)).toString('latin1'), file).not.toContain(
        '@example.com',
      );
    }

    const withPersonal = await withDb(
      (db) => exportTables(db.connection, { outDir: out, format: 'parquet', includePersonalData: true }),
      true,
    );
    expect(withPersonal.skippedColumns).toEqual([]);
    const rows = await readExported(out, 'feedback', 'id');
    expect(rows.map((r) => [r['id'], r['contact']])).toEqual([
      ['f1', 'ann@example.com'],
      ['f2', null],
      ['f3', 'bob@example.com'],
    ]);
  });

  it('export feedback without created_at under year and month NULL, with or without --from/--to', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const undated = join(
      'project_id=docs-a',
      'year=__HIVE_DEFAULT_PARTITION__',
      'month=__HIVE_DEFAULT_PARTITION__',
    );
    expect(await filesUnder(join(out, 'feedback'))).toContain(join(undated, 'data_0.parquet'));
    const all = await readExported(out, 'feedback', 'id');
    expect(all.map((r) => [r['id'], r['created_at'], r['year'], r['month']])).toEqual([
      ['f1', '2026-01-10T10:00:00.000Z', 2026, '01'],
      ['f2', '2026-02-03T10:00:00.000Z', 2026, '02'],
      ['f3', null, null, null],
    ]);

    // A range export of February rewrites the undated rows too (they belong to no month), and
    // leaves January's file alone.
    await withDb((db) => db.connection.run("UPDATE feedback SET status = 'resolved'"));
    const summary = await exportTo(out, { from: '2026-02-01', to: '2026-03-01' });
    expect(summary.tables.find((t) => t.table === 'feedback')).toMatchObject({ rows: 2, removedFiles: 0 });
    const after = await readExported(out, 'feedback', 'id');
    expect(after.map((r) => [r['id'], r['status']])).toEqual([
      ['f1', 'pending'],
      ['f2', 'resolved'],
      ['f3', 'resolved'],
    ]);
  });
});

describe('tables marked personal', () => {
  const FAKE: readonly TableSpec[] = [specOf('site_daily'), { ...specOf('page_daily'), personal: true }];

  it('are not exported unless personal data is asked for, and are then', async () => {
    const out = join(dir, 'out');
    const without = await withDb(
      (db) => exportTables(db.connection, { outDir: out, format: 'parquet', tables: FAKE }),
      true,
    );
    expect(without.tables.map((t) => t.table)).toEqual(['site_daily']);
    expect(without.skipped).toEqual([{ table: 'page_daily', reason: 'personal' }]);
    expect(existsSync(join(out, 'page_daily'))).toBe(false);

    const withPersonal = await withDb(
      (db) =>
        exportTables(db.connection, {
          outDir: out,
          format: 'parquet',
          tables: FAKE,
          includePersonalData: true,
        }),
      true,
    );
    expect(withPersonal.tables.map((t) => [t.table, t.rows])).toEqual([
      ['site_daily', 9],
      ['page_daily', 45],
    ]);
  });
});

describe('EXPORT_TABLES', () => {
  it("lists every registered stream's tables under that stream", () => {
    for (const stream of STREAMS) {
      for (const table of stream.tables) expect(specOf(table).stream, table).toBe(stream.name);
    }
  });

  it('lists the event stream (not a registered stream) under events, and never the hash key', () => {
    expect(specOf('analytics_events').stream).toBe('events');
    expect(EXPORT_TABLES.map((t) => t.table)).not.toContain('event_hash_key');
  });

  it('covers every table of per-project data but the bookkeeping ones (event_objects: the event ledger), each with every column but project_id, loaded_at, run_id and window_start', async () => {
    const columns = await withDb(
      (db) =>
        queryRows(
          db.connection,
          `SELECT table_name, list(column_name ORDER BY column_index) AS columns FROM duckdb_columns()
           WHERE NOT internal AND table_name IN (SELECT table_name FROM duckdb_tables())
             AND table_name NOT IN ('sync_windows', 'api_requests', 'agent_jobs', 'agent_job_gaps', 'alerts_sent', 'event_objects', 'event_object_failures') GROUP BY table_name
           HAVING list_contains(columns, 'project_id')`,
        ),
      true,
    );
    const bookkeeping = new Set(['project_id', 'loaded_at', 'run_id', 'window_start']);
    const schema = new Map(
      columns.map((r) => [
        String(r['table_name']),
        (r['columns'] as string[]).filter((c) => !bookkeeping.has(c)),
      ]),
    );
    expect(EXPORT_TABLES.map((t) => t.table).sort()).toEqual([...schema.keys()].sort());
    for (const spec of EXPORT_TABLES) expect(spec.columns, spec.table).toEqual(schema.get(spec.table));
  });
});
