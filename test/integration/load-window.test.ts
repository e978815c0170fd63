import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataShiftError, InternalError } from '../../src/errors.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, toDateValue, type Row } from '../../src/load/duckdb/sql.js';
import { loadWindow, loadWindows } from '../../src/load/duckdb/visitor-windows.js';
import { markWindowFailed } from '../../src/load/failed-windows.js';
import { type BatchStep } from '../../src/load/prepared-window.js';
import { type WindowLoad } from '../../src/load/site-page-rows.js';
import { spawnNodeScript, tempDir } from '../helpers/duckdb-temp.js';
import { transpileForChild } from '../helpers/transpile.js';

let dir: string;
let cleanup: () => void;
let path: string;
let db: Database;

// One file for the whole suite (opening costs more than a test): emptied before each test.
beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'w.duckdb');
  db = await openDatabase(path);
});
afterAll(() => {
  db.close();
  cleanup();
});
beforeEach(async () => {
  await db.connection.run('DELETE FROM site_daily; DELETE FROM page_daily; DELETE FROM sync_windows;');
});

type Page = WindowLoad['pages'][number];

function pages(n: number, prefix = '/p', base = 0): Page[] {
  return Array.from({ length: n }, (_, i) => ({
    path: `${prefix}${i}`,
    human: base + i + 2,
    ai: i,
    total: base + i + 2 + i,
  }));
}

function win(day: string, ps: readonly Page[], over: Partial<WindowLoad> = {}): WindowLoad {
  return {
    projectId: 'proj',
    day,
    site: { human: 1000, ai: 100, total: 1050 },
    pages: ps,
    partial: false,
    pagesFetched: Math.max(1, Math.ceil(ps.length / 250)),
    attempts: 1,
    runId: 'run-1',
    fetchedAt: new Date('2024-03-02T05:00:00.000Z'),
    apiTotalsTotal: 1050,
    ...over,
  };
}

async function rows(sql: string): Promise<Row[]> {
  return queryRows(db.connection, sql);
}

async function snapshot(): Promise<{ site: Row[]; pages: Row[]; windows: Row[] }> {
  return {
    site: await rows('SELECT * EXCLUDE (loaded_at) FROM site_daily ORDER BY ALL'),
    pages: await rows('SELECT * FROM page_daily ORDER BY ALL'),
    windows: await rows('SELECT * FROM sync_windows ORDER BY ALL'),
  };
}

async function duplicateKeys(): Promise<number> {
  const r = await rows(
    'SELECT count(*) AS n FROM (SELECT project_id, day, path FROM page_daily GROUP BY ALL HAVING count(*) > 1)',
  );
  return r[0]?.['n'] as number;
}

describe('loadWindow', () => {
  it('writes the site row, the page rows and the loaded window record', async () => {
    const before = Date.now();
    await loadWindow(db, win('2024-03-01', pages(3), { attempts: 2, runId: 'r-9', partial: true }));
    const after = Date.now();
    expect(await rows('SELECT project_id, day, human, ai, total, partial, run_id FROM site_daily')).toEqual([
      {
        project_id: 'proj',
        day: '2024-03-01',
        human: 1000,
        ai: 100,
        total: 1050,
        partial: true,
        run_id: 'r-9',
      },
    ]);
    expect(await rows('SELECT path, human, ai, total FROM page_daily ORDER BY path')).toEqual([
      { path: '/p0', human: 2, ai: 0, total: 2 },
      { path: '/p1', human: 3, ai: 1, total: 4 },
      { path: '/p2', human: 4, ai: 2, total: 6 },
    ]);
    expect(await rows('SELECT * FROM sync_windows')).toEqual([
      {
        project_id: 'proj',
        stream: 'visitors',
        window_start: '2024-03-01',
        window_end: '2024-03-02',
        status: 'loaded',
        pages: 1,
        rows: 3,
        truncated: false,
        api_totals_total: 1050,
        attempts: 2,
        fetched_at: '2024-03-02T05:00:00.000Z',
        run_id: 'r-9',
        error: null,
      },
    ]);
    const loadedAt = (await rows('SELECT loaded_at FROM site_daily'))[0]?.['loaded_at'] as string;
    // Stamped by the load itself: between the call and its return (the text keeps whole milliseconds).
    expect(Date.parse(loadedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(loadedAt)).toBeLessThanOrEqual(after);
  });

  it('replaces the day as a set: loading fewer rows leaves no stale rows and other days untouched', async () => {
    await loadWindow(db, win('2024-03-01', pages(300)));
    await loadWindow(db, win('2024-03-02', pages(5)));
    await loadWindow(db, win('2024-03-01', pages(2, '/new')));
    expect(await rows("SELECT path FROM page_daily WHERE day = '2024-03-01' ORDER BY path")).toEqual([
      { path: '/new0' },
      { path: '/new1' },
    ]);
    expect(await rows("SELECT count(*) AS n FROM page_daily WHERE day = '2024-03-02'")).toEqual([{ n: 5 }]);
    expect(await rows("SELECT rows FROM sync_windows WHERE window_start = '2024-03-01'")).toEqual([
      { rows: 2 },
    ]);
    expect(await duplicateKeys()).toBe(0);
  });

  it('leaves the tables identical when the same window is loaded again', async () => {
    const w = win('2024-03-01', pages(260));
    await loadWindow(db, w);
    const before = await snapshot();
    await loadWindow(db, w);
    await loadWindows(db, [w, w]);
    expect(await snapshot()).toEqual(before);
    expect(await duplicateKeys()).toBe(0);
  });

  it('keeps the days of other projects apart', async () => {
    await loadWindow(db, win('2024-03-01', pages(3)));
    await loadWindow(db, win('2024-03-01', pages(1, '/other'), { projectId: 'proj-2' }));
    await loadWindow(db, win('2024-03-01', pages(2)));
    expect(await rows('SELECT project_id, count(*) AS n FROM page_daily GROUP BY ALL ORDER BY ALL')).toEqual([
      { project_id: 'proj', n: 2 },
      { project_id: 'proj-2', n: 1 },
    ]);
  });

  it('loads a window with no page rows (a day nobody visited)', async () => {
    await loadWindow(db, win('2024-03-01', pages(3)));
    await loadWindow(db, win('2024-03-01', [], { site: { human: 0, ai: 0, total: 0 }, apiTotalsTotal: 0 }));
    expect(await rows('SELECT total FROM site_daily')).toEqual([{ total: 0 }]);
    expect(await rows('SELECT count(*) AS n FROM page_daily')).toEqual([{ n: 0 }]);
    expect(await rows('SELECT status, rows FROM sync_windows')).toEqual([{ status: 'loaded', rows: 0 }]);
  });

  it('loads more rows than one DuckDB vector (several chunks) exactly', async () => {
    await loadWindow(db, win('2024-03-01', pages(5000)));
    expect(
      await rows('SELECT count(*) AS n, count(DISTINCT path) AS d, sum(total) AS s FROM page_daily'),
    ).toEqual([{ n: 5000, d: 5000, s: ((5000 * 4999) / 2) * 2 + 2 * 5000 }]);
  });

  it('stores paths exactly as given: unicode, quotes, backslashes, %, ?, and case', async () => {
    const odd = [
      '/Docs/Intro',
      '/docs/intro',
      '/docs/intro/',
      '/it\'s "quoted"',
      '/back\\slash',
      '/100%-sure',
      '/search?q=a&b=c',
      '/日本語/ページ',
      '/emoji/🦆',
      '/combining/é',
      '/precomposed/é',
      '/with space/and\ttab',
      '/semi;colon,comma',
      `/${'long-'.repeat(400)}`,
    ];
    const ps = odd.map((p, i) => ({ path: p, human: i, ai: 0, total: i }));
    await loadWindow(db, win('2024-03-01', ps));
    const back = await rows('SELECT path, total FROM page_daily');
    expect(new Map(back.map((r) => [r['path'], r['total']]))).toEqual(
      new Map(ps.map((p) => [p.path, p.total])),
    );
    expect(back).toHaveLength(odd.length);
  });

  it('collapses a row repeated identically, and refuses a path repeated with other counts', async () => {
    const p = { path: '/a', human: 1, ai: 1, total: 2 };
    await loadWindow(db, win('2024-03-01', [p, { ...p }, { path: '/b', human: 1, ai: 0, total: 1 }]));
    expect(await rows('SELECT path FROM page_daily ORDER BY path')).toEqual([{ path: '/a' }, { path: '/b' }]);

    const err = await loadWindow(db, win('2024-03-01', [p, { ...p, total: 3 }])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataShiftError);
    expect((err as Error).message).toBe(
      'window proj 2024-03-01: path "/a" appears twice with different counts',
    );
    expect(await rows('SELECT path FROM page_daily ORDER BY path')).toEqual([{ path: '/a' }, { path: '/b' }]);
  });

  it('refuses a row without a path before touching the day, and the connection stays usable', async () => {
    await loadWindow(db, win('2024-03-01', pages(4), { runId: 'old' }));
    const before = await snapshot();
    const bad = [...pages(3, '/n'), { path: null as unknown as string, human: 1, ai: 1, total: 1 }];
    const err = await loadWindow(
      db,
      win('2024-03-01', bad, { runId: 'new', site: { human: 1, ai: 1, total: 1 } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect((err as Error).message).toBe('window proj 2024-03-01: page row 3 has no path');
    expect(await snapshot()).toEqual(before);
    await loadWindow(db, win('2024-03-01', pages(1)));
    expect(await rows('SELECT count(*) AS n FROM page_daily')).toEqual([{ n: 1 }]);
  });

  it('stores a path holding a lone UTF-16 surrogate as U+FFFD instead of failing the day', async () => {
    await loadWindow(db, win('2024-03-01', [{ path: '/a\ud800b', human: 2, ai: 1, total: 3 }]));
    expect(await rows('SELECT path, total FROM page_daily')).toEqual([{ path: '/a\ufffdb', total: 3 }]);
  });

  it.each([
    ['two lone surrogates', ['/a\ud800b', '/a\udc00b']],
    ['a lone surrogate and a real U+FFFD', ['/a\ufffdb', '/a\ud800b']],
    ['a real U+FFFD after a lone surrogate', ['/a\ud800b', '/a\ufffdb']],
  ])('refuses a day where %s would merge two API paths into one row', async (_what, paths) => {
    await loadWindow(db, win('2024-03-01', pages(1, '/old')));
    const before = await snapshot();
    const same = paths.map((path) => ({ path, human: 1, ai: 0, total: 1 }));
    await expect(loadWindow(db, win('2024-03-01', same))).rejects.toThrow(
      'stands for two API paths that differ only in an unpaired UTF-16 surrogate',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a count that is not a non-negative integer, leaving the old day', async () => {
    await loadWindow(db, win('2024-03-01', pages(2)));
    const before = await snapshot();
    const bad = [{ path: '/x', human: 1.5, ai: 0, total: 1 }];
    await expect(loadWindow(db, win('2024-03-01', bad))).rejects.toThrow(
      'window proj 2024-03-01: page row 0 human is 1.5, not a non-negative integer',
    );
    await expect(loadWindow(db, win('2024-02-30', pages(1)))).rejects.toThrow('not a calendar day');
    expect(await snapshot()).toEqual(before);
  });

  it.each<BatchStep>(['delete', 'site', 'pages', 'window'])(
    'leaves the day all-old when it fails after the %s step',
    async (step) => {
      await loadWindow(db, win('2024-03-01', pages(4), { runId: 'old' }));
      const before = await snapshot();
      const failing = loadWindow(db, win('2024-03-01', pages(2, '/new'), { runId: 'new' }), {
        onStep: (s) => {
          if (s === step) throw new Error(`boom after ${s}`);
        },
      });
      await expect(failing).rejects.toThrow(`boom after ${step}`);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('serializes concurrent loads on one connection (no interleaved transactions)', async () => {
    const days = Array.from({ length: 12 }, (_, i) => `2024-04-${String(i + 1).padStart(2, '0')}`);
    const results = await Promise.allSettled(
      days.map((d, i) =>
        loadWindow(
          db,
          win(d, i === 5 ? [{ path: null as unknown as string, human: 0, ai: 0, total: 0 }] : pages(30)),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(days.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    expect(await rows('SELECT count(*) AS n, count(DISTINCT day) AS d FROM page_daily')).toEqual([
      { n: 330, d: 11 },
    ]);
    expect(await rows("SELECT count(*) AS n FROM sync_windows WHERE status = 'loaded'")).toEqual([{ n: 11 }]);
  });
});

describe('the DuckDB Appender', () => {
  it('writes into the open transaction: ROLLBACK discards appended rows and restores deleted ones', async () => {
    await loadWindow(db, win('2024-03-01', pages(3)));
    const conn = db.connection;
    await conn.run('BEGIN TRANSACTION');
    await conn.run("DELETE FROM page_daily WHERE day = '2024-03-01'");
    const appender = await conn.createAppender('page_daily');
    appender.appendVarchar('proj');
    appender.appendDate(toDateValue('2024-03-01'));
    appender.appendVarchar('/appended');
    appender.appendBigInt(1n);
    appender.appendBigInt(1n);
    appender.appendBigInt(1n);
    appender.endRow();
    appender.closeSync();
    expect(await rows('SELECT path FROM page_daily')).toEqual([{ path: '/appended' }]);
    await conn.run('ROLLBACK');
    expect(await rows('SELECT path FROM page_daily ORDER BY path')).toEqual([
      { path: '/p0' },
      { path: '/p1' },
      { path: '/p2' },
    ]);
  });
});

describe('a crash in the middle of a load', () => {
  it('leaves the day all-old after the process is killed before COMMIT (a window bigger than a row group)', async () => {
    await loadWindow(db, win('2024-03-01', pages(250), { runId: 'old' }));
    const before = await snapshot();
    db.close();

    // The loader and what it imports (followed by the helper).
    const js = await transpileForChild(['src/load/duckdb/visitor-windows.ts']);
    try {
      const loader = pathToFileURL(join(js.dir, 'src/load/duckdb/visitor-windows.js')).href;
      // More rows than a DuckDB row group (122,880): DuckDB may write such rows to the file before COMMIT.
      const big = win('2024-03-01', [], { runId: 'crash' });
      const child = spawnNodeScript(
        `
        import { DuckDBInstance } from '@duckdb/node-api';
        const [loader, path, json] = process.argv.slice(-3);
        const { loadWindow } = await import(loader);
        const instance = await DuckDBInstance.create(path);
        const connection = await instance.connect();
        const w = JSON.parse(json);
        w.fetchedAt = new Date(w.fetchedAt);
        w.pages = Array.from({ length: 130000 }, (_, i) => ({ path: '/crash' + i, human: i, ai: 0, total: i }));
        const db = { path, connection, readOnly: false, close() {} };
        await loadWindow(db, w, { onStep: (s) => { if (s === 'window') process.kill(process.pid, 'SIGKILL'); } });
        console.log('survived');
        `,
        [loader, path, JSON.stringify(big)],
      );
      const exit = await child.exited;
      expect(exit.signal, child.stderr()).toBe('SIGKILL');
    } finally {
      js.cleanup();
    }

    db = await openDatabase(path);
    expect(await snapshot()).toEqual(before);
    await loadWindow(db, win('2024-03-01', pages(2, '/after')));
    expect(await rows('SELECT path FROM page_daily ORDER BY path')).toEqual([
      { path: '/after0' },
      { path: '/after1' },
    ]);
  });
});

describe('markWindowFailed', () => {
  const failure = {
    projectId: 'proj',
    day: '2024-03-01',
    runId: 'run-2',
    error: 'HTTP 500 after 6 attempts',
    attempts: 6,
    fetchedAt: new Date('2024-03-02T06:00:00.000Z'),
  };

  it('records a failed window for a day with no data, and a later load replaces it', async () => {
    expect(await markWindowFailed(db.session, failure)).toBe(true);
    expect(
      await rows(
        'SELECT window_start AS day, status, attempts, run_id, error, pages, rows FROM sync_windows',
      ),
    ).toEqual([
      {
        day: '2024-03-01',
        status: 'failed',
        attempts: 6,
        run_id: 'run-2',
        error: 'HTTP 500 after 6 attempts',
        pages: 0,
        rows: 0,
      },
    ]);
    expect(await markWindowFailed(db.session, { ...failure, attempts: 3, error: 'again' })).toBe(true);
    expect(await rows('SELECT attempts, error FROM sync_windows')).toEqual([{ attempts: 3, error: 'again' }]);

    await loadWindow(db, win('2024-03-01', pages(1)));
    expect(await rows('SELECT status, error FROM sync_windows')).toEqual([{ status: 'loaded', error: null }]);
  });

  it('never downgrades a loaded day', async () => {
    await loadWindow(db, win('2024-03-01', pages(2)));
    const before = await snapshot();
    expect(await markWindowFailed(db.session, failure)).toBe(false);
    expect(await snapshot()).toEqual(before);
  });
});
