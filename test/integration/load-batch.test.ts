import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataShiftError, InternalError } from '../../src/errors.js';
import { loadWindowBatch } from '../../src/load/duckdb/visitor-windows.js';
import { type BatchStep } from '../../src/load/prepared-window.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { sitePageRows, VISITOR_SPEC, type WindowLoad } from '../../src/load/site-page-rows.js';
import { loadPreparedBatch } from '../../src/load/duckdb/window-batch.js';
import { tempDir } from '../helpers/duckdb-temp.js';

let cleanup: () => void;
let db: Database;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'batch.duckdb'));
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
    human: base + i,
    ai: i,
    total: base + 2 * i,
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

const q = (sql: string): Promise<Row[]> => queryRows(db.connection, sql);

async function pageCounts(): Promise<Row[]> {
  return q(
    'SELECT project_id, day, count(*) AS n, count(DISTINCT path) AS paths, sum(human) AS human FROM page_daily GROUP BY ALL ORDER BY ALL',
  );
}

async function snapshot(): Promise<Row[][]> {
  return [
    await q('SELECT * FROM page_daily ORDER BY ALL'),
    await q('SELECT project_id, day, human, ai, total, partial, run_id FROM site_daily ORDER BY ALL'),
    await q(
      'SELECT project_id, window_start AS day, status, pages, rows, run_id FROM sync_windows ORDER BY ALL',
    ),
  ];
}

const ODD_PATHS = [
  '/docs/héllo-wörld',
  '/文档/快速开始',
  '/emoji/🚀/launch',
  '/quote/"double"/\'single\'',
  '/comma,separated,path',
  '/back\\slash\\\\double',
  '/percent%20encoded%2F',
  '/query?a=1&b=2#frag',
  '/semi;colon|pipe\ttab',
  '/new\nline\r\nwindows',
  '/trailing space ',
  '/Docs/API',
  '/docs/api',
  '',
  '/"",,"\\N',
  'NULL',
  '/zero\u200bwidth\u00a0nbsp',
];

describe('loadWindowBatch', () => {
  it('stores every odd path exactly as given: unicode, quotes, commas, backslashes, %, ?, newlines', async () => {
    const ps = ODD_PATHS.map((path, i) => ({ path, human: i, ai: 1, total: i + 1 }));
    await loadWindowBatch(db, [win('2024-03-01', ps), win('2024-03-02', ps.slice(3), { projectId: 'p"2,' })]);
    const got = await q("SELECT path FROM page_daily WHERE day = '2024-03-01' ORDER BY human");
    expect(got.map((r) => r['path'])).toEqual(ODD_PATHS);
    const other = await q("SELECT project_id, path FROM page_daily WHERE day = '2024-03-02' ORDER BY human");
    expect(other.map((r) => r['path'])).toEqual(ODD_PATHS.slice(3));
    expect(new Set(other.map((r) => r['project_id']))).toEqual(new Set(['p"2,']));
  });

  it('writes the site row, the page rows and a loaded sync_windows row for each day of the batch', async () => {
    await loadWindowBatch(db, [
      win('2024-03-01', pages(300)),
      win('2024-03-02', [], { partial: true, site: { human: 0, ai: 0, total: 0 }, apiTotalsTotal: 0 }),
      win('2024-03-01', pages(2), { projectId: 'other', runId: 'run-2' }),
    ]);
    expect(await pageCounts()).toEqual([
      { project_id: 'other', day: '2024-03-01', n: 2, paths: 2, human: 1 },
      { project_id: 'proj', day: '2024-03-01', n: 300, paths: 300, human: 44850 },
    ]);
    expect(
      await q('SELECT project_id, day, human, ai, total, partial, run_id FROM site_daily ORDER BY ALL'),
    ).toEqual([
      {
        project_id: 'other',
        day: '2024-03-01',
        human: 1000,
        ai: 100,
        total: 1050,
        partial: false,
        run_id: 'run-2',
      },
      {
        project_id: 'proj',
        day: '2024-03-01',
        human: 1000,
        ai: 100,
        total: 1050,
        partial: false,
        run_id: 'run-1',
      },
      { project_id: 'proj', day: '2024-03-02', human: 0, ai: 0, total: 0, partial: true, run_id: 'run-1' },
    ]);
    expect(
      await q(
        'SELECT project_id, window_start AS day, status, pages, rows, api_totals_total, error FROM sync_windows ORDER BY ALL',
      ),
    ).toEqual([
      {
        project_id: 'other',
        day: '2024-03-01',
        status: 'loaded',
        pages: 1,
        rows: 2,
        api_totals_total: 1050,
        error: null,
      },
      {
        project_id: 'proj',
        day: '2024-03-01',
        status: 'loaded',
        pages: 2,
        rows: 300,
        api_totals_total: 1050,
        error: null,
      },
      {
        project_id: 'proj',
        day: '2024-03-02',
        status: 'loaded',
        pages: 1,
        rows: 0,
        api_totals_total: 0,
        error: null,
      },
    ]);
  });

  it('replaces the days of a batch as sets and leaves the other days alone, with no duplicate rows', async () => {
    await loadWindowBatch(db, [
      win('2024-03-01', pages(5)),
      win('2024-03-02', pages(4)),
      win('2024-03-03', pages(3)),
    ]);
    await loadWindowBatch(db, [
      win('2024-03-01', pages(2, '/new', 100), { runId: 'run-2' }),
      win('2024-03-03', [], { runId: 'run-2' }),
      win('2024-03-04', pages(1), { runId: 'run-2' }),
    ]);
    expect(await pageCounts()).toEqual([
      { project_id: 'proj', day: '2024-03-01', n: 2, paths: 2, human: 201 },
      { project_id: 'proj', day: '2024-03-02', n: 4, paths: 4, human: 6 },
      { project_id: 'proj', day: '2024-03-04', n: 1, paths: 1, human: 0 },
    ]);
    expect(await q("SELECT path FROM page_daily WHERE day = '2024-03-01' ORDER BY path")).toEqual([
      { path: '/new0' },
      { path: '/new1' },
    ]);
    expect(await q('SELECT window_start AS day, run_id FROM sync_windows ORDER BY day')).toEqual([
      { day: '2024-03-01', run_id: 'run-2' },
      { day: '2024-03-02', run_id: 'run-1' },
      { day: '2024-03-03', run_id: 'run-2' },
      { day: '2024-03-04', run_id: 'run-2' },
    ]);
    expect(await q('SELECT count(*) AS n FROM site_daily')).toEqual([{ n: 4 }]);
  });

  it('keeps the last of two windows for the same day in one batch, as loading them in order would', async () => {
    await loadWindowBatch(db, [
      win('2024-03-01', pages(5)),
      win('2024-03-01', pages(2, '/b'), { runId: 'run-2' }),
    ]);
    expect(await pageCounts()).toEqual([{ project_id: 'proj', day: '2024-03-01', n: 2, paths: 2, human: 1 }]);
    expect(await q('SELECT run_id FROM site_daily')).toEqual([{ run_id: 'run-2' }]);
  });

  it('collapses a path repeated with identical counts (a page boundary shown twice) to one row', async () => {
    const ps = pages(3);
    await loadWindowBatch(db, [win('2024-03-01', [...ps, ps[2] as Page])]);
    expect(await pageCounts()).toEqual([{ project_id: 'proj', day: '2024-03-01', n: 3, paths: 3, human: 3 }]);
    expect(await q('SELECT rows FROM sync_windows')).toEqual([{ rows: 3 }]);
  });

  it('refuses the whole batch before writing when one window has a path twice with different counts', async () => {
    await loadWindowBatch(db, [win('2024-03-01', pages(5))]);
    const before = await snapshot();
    const bad = win('2024-03-02', [...pages(2), { path: '/p1', human: 99, ai: 0, total: 99 }]);
    await expect(loadWindowBatch(db, [win('2024-03-01', pages(1)), bad])).rejects.toBeInstanceOf(
      DataShiftError,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a negative or fractional count, naming the window', async () => {
    const bad = win('2024-03-02', [{ path: '/x', human: 1.5, ai: 0, total: 2 }]);
    await expect(loadWindowBatch(db, [bad])).rejects.toThrow(/proj 2024-03-02: page row 0 human is 1.5/);
    await expect(loadWindowBatch(db, [win('2024-02-30', [])])).rejects.toBeInstanceOf(InternalError);
  });

  for (const step of ['delete', 'site', 'pages', 'window'] as const satisfies readonly BatchStep[]) {
    it(`rolls the whole batch back when it fails after the ${step} step: every old day intact, no new day`, async () => {
      await loadWindowBatch(db, [win('2024-03-01', pages(5)), win('2024-03-02', pages(4))]);
      const before = await snapshot();
      const batch = [
        win('2024-03-01', pages(7, '/n'), { runId: 'run-2' }),
        win('2024-03-02', [], { runId: 'run-2' }),
        win('2024-03-03', pages(600), { runId: 'run-2' }),
      ];
      await expect(
        loadWindowBatch(db, batch, {
          onStep: (s) => {
            if (s === step) throw new Error(`injected after ${s}`);
          },
        }),
      ).rejects.toThrow(`injected after ${step}`);
      expect(await snapshot()).toEqual(before);
      // The connection is usable afterwards: the same batch then loads in full.
      await loadWindowBatch(db, batch);
      expect(await pageCounts()).toEqual([
        { project_id: 'proj', day: '2024-03-01', n: 7, paths: 7, human: 21 },
        { project_id: 'proj', day: '2024-03-03', n: 600, paths: 600, human: 179700 },
      ]);
    });
  }

  it('loads a day whose text waits in files (more than one chunk) again in full after its batch rolled back, as the writer retries a window alone', async () => {
    const rows = 45_000;
    const fetched = sitePageRows({ projectId: 'proj', day: '2024-03-04' });
    const all = pages(rows, '/spilled/');
    for (let i = 0; i < rows; i += 250) expect(fetched.add(all.slice(i, i + 250))).toBeUndefined();
    const { pages: _all, ...meta } = win('2024-03-04', all);
    const big = fetched.seal().prepare(meta, 'visitors', VISITOR_SPEC);
    await expect(
      loadPreparedBatch(db, [big], {
        onStep: (s) => {
          if (s === 'pages') throw new Error('injected after pages');
        },
      }),
    ).rejects.toThrow('injected after pages');
    expect(await pageCounts()).toEqual([]);
    await loadPreparedBatch(db, [big]);
    expect(await pageCounts()).toEqual([
      { project_id: 'proj', day: '2024-03-04', n: rows, paths: rows, human: (rows * (rows - 1)) / 2 },
    ]);
  });

  it('keeps the day fully old when only its sync_windows row cannot be written (the last step before COMMIT)', async () => {
    // The window record is part of the day's transaction: a day whose record failed must not
    // keep new site and page rows with an old (or no) record, nor the other way round.
    await loadWindowBatch(db, [win('2024-03-01', pages(5))]);
    const before = [
      ...(await snapshot()),
      await q('SELECT project_id, window_start, fetched_at FROM sync_windows ORDER BY ALL'),
    ];
    const broken = win('2024-03-01', pages(7, '/n'), { runId: 'run-2', fetchedAt: new Date(Number.NaN) });
    await expect(loadWindowBatch(db, [broken])).rejects.toBeInstanceOf(InternalError);
    expect([
      ...(await snapshot()),
      await q('SELECT project_id, window_start, fetched_at FROM sync_windows ORDER BY ALL'),
    ]).toEqual(before);
  });

  it("replaces a day of one project without touching another project's same day", async () => {
    // The DELETE of a reload is keyed by (project, day): a day alone would wipe every project's.
    await loadWindowBatch(db, [win('2024-03-01', pages(5), { projectId: 'a' })]);
    const a = await snapshot();
    await loadWindowBatch(db, [win('2024-03-01', pages(3, '/b'), { projectId: 'b', runId: 'run-2' })]);
    const [pagesNow, siteNow, windowsNow] = await snapshot();
    const onlyA = (rows: Row[] | undefined) => (rows ?? []).filter((r) => r['project_id'] === 'a');
    expect([onlyA(pagesNow), onlyA(siteNow), onlyA(windowsNow)]).toEqual(a);
    expect(await pageCounts()).toEqual([
      { project_id: 'a', day: '2024-03-01', n: 5, paths: 5, human: 10 },
      { project_id: 'b', day: '2024-03-01', n: 3, paths: 3, human: 3 },
    ]);
  });

  it('loads a batch larger than one DataChunk (2,048 rows) across many days exactly', async () => {
    const batch = Array.from({ length: 31 }, (_, d) =>
      win(`2024-01-${String(d + 1).padStart(2, '0')}`, pages(250, `/d${d}/`)),
    );
    await loadWindowBatch(db, batch);
    expect(
      await q('SELECT count(*) AS n, count(DISTINCT (day, path)) AS u, sum(total) AS t FROM page_daily'),
    ).toEqual([{ n: 31 * 250, u: 31 * 250, t: 31 * 250 * 249 }]);
  });
});

describe('a day of any size the pager accepts', () => {
  it("loads a 600,000-row day under the writer's 32 MB DuckDB memory limit", async () => {
    const [before] = await q("SELECT current_setting('memory_limit') AS v");
    await db.connection.run("SET memory_limit = '32MB'");
    try {
      await loadWindowBatch(db, [
        win('2024-03-05', pages(600_000, '/docs/a-fairly-long-section-name/page-')),
      ]);
    } finally {
      await db.connection.run(`SET memory_limit = '${String(before?.['v'])}'`);
    }
    // Checked with DuckDB's normal limit: counting 600,000 distinct paths is the test's cost, not the loader's.
    expect(await pageCounts()).toEqual([
      { project_id: 'proj', day: '2024-03-05', n: 600_000, paths: 600_000, human: 179_999_700_000 },
    ]);
  }, 120_000);
});
