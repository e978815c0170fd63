import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBigDayApi, bigDayRow, bigDayTotals } from '../bench/big-day.js';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import type { FakeApi } from '../helpers/fake-api.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { pgRows } from '../helpers/postgres-rows.js';

// 200 pages of 250: the day's text spans several load chunks (20,000 rows each), the last one
// short, so it waits for the load in files (issue 36, item 12).
const ROWS = 50_000;
let api: FakeApi;

beforeAll(async () => {
  api = await startBigDayApi({ rows: ROWS });
});

afterAll(async () => {
  await api.close();
});

const db = (dir: string): string => join(dir, 'x.duckdb');

/** The day's rows of visitors and of views are the API's, and the site totals their sums. */
async function expectTheBigDay(read: (sql: string) => Promise<unknown[]>): Promise<void> {
  const truth = Array.from({ length: ROWS }, (_, i) => bigDayRow(i)).sort(byPath);
  for (const [site, pages] of [
    ['site_daily', 'page_daily'],
    ['site_views_daily', 'page_views_daily'],
  ] as const) {
    const stored = (await read(
      `SELECT path, human::INT AS human, ai::INT AS ai, total::INT AS total FROM ${pages} WHERE project_id = 'proj' AND day = DATE '2026-01-05'`,
    )) as { path: string }[];
    expect(stored.sort(byPath)).toEqual(truth);
    expect(await read(`SELECT human::INT AS human, ai::INT AS ai, total::INT AS total FROM ${site}`)).toEqual(
      [bigDayTotals(ROWS)],
    );
  }
}

/** The sync of the one big day (2026-01-05) of `streams` into the database `dbArgs` name. */
const syncDay = (dbArgs: readonly string[], streams: string): string[] => [
  'sync',
  ...dbArgs,
  '--from',
  '2026-01-05',
  '--to',
  '2026-01-06',
  '--streams',
  streams,
  '--rate-limit',
  '100000/1h',
];
const apiEnv = (): Record<string, string> => ({
  MINTLIFY_API_KEY: 'mint_test_key_123456',
  MINTLIFY_PROJECT_ID: 'proj',
  MINTLIFY_API_URL: api.url,
});

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

describe('sync of a day of many pages (issue 19, item 15: pages go to the writer as text)', () => {
  it('loads every row of a 50,000-row day of visitors and of views exactly as the API sent them', async () => {
    const db = tempDbPath();
    const r = await runCli(syncDay(['--db', db], 'visitors,views'), apiEnv());
    expect(r.code, r.stderr).toBe(0);
    await expectTheBigDay((sql) => readRows(db, sql));
    expect(
      await readRows(
        db,
        'SELECT stream, status, pages::INT AS pages, rows::INT AS rows FROM sync_windows ORDER BY stream',
      ),
    ).toEqual([
      { stream: 'views', status: 'loaded', pages: 200, rows: ROWS },
      { stream: 'visitors', status: 'loaded', pages: 200, rows: ROWS },
    ]);
  });
});

describe('the files a big day waits in', () => {
  it('are gone when the sync process has exited', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'big-day-tmp-'));
    try {
      const r = await runCliProcess(syncDay(['--db', db(tmp)], 'visitors'), { TMPDIR: tmp, ...apiEnv() });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(tmp).filter((f) => f.startsWith('mintlify-etl-chunks-'))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('a big day when the temporary folder cannot be written', () => {
  it('still loads every row (the day waits in memory instead)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'big-day-notmp-'));
    try {
      const r = await runCliProcess(syncDay(['--db', db(tmp)], 'visitors'), {
        TMPDIR: join(tmp, 'no-such-folder'),
        ...apiEnv(),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(
        await readRows(
          db(tmp),
          'SELECT count(*)::INT AS n, count(DISTINCT path)::INT AS paths FROM page_daily',
        ),
      ).toEqual([{ n: ROWS, paths: ROWS }]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasPostgres())('sync of a day of many pages into PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('loads every row of a 50,000-row day of visitors and of views exactly as the API sent them', async () => {
    const r = await runCli(syncDay(['--db', server.url, '--schema', 'bigday'], 'visitors,views'), apiEnv());
    expect(r.code, r.stderr).toBe(0);
    await expectTheBigDay((sql) => pgRows(server.url, 'bigday', sql));
  });
});
