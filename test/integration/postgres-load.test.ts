import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { InternalError } from '../../src/errors.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { loadPreparedBatch } from '../../src/load/duckdb/window-batch.js';
import type * as WindowBatch from '../../src/load/duckdb/window-batch.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { loadPreparedBatchPostgres, markWindowFailedPostgres } from '../../src/load/postgres/window-batch.js';
import type { BatchStep, PreparedWindow } from '../../src/load/prepared-window.js';
import { markWindowFailed, type WindowFailure } from '../../src/load/failed-windows.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { duckCanonical, pgCanonical, type Canonical } from '../helpers/canonical-rows.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';
import {
  assistantWindow,
  fb,
  feedbackWindow,
  searchWindow,
  threadWindow,
  turn,
  visitorsWindow,
} from '../helpers/prepared-windows.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';

/*
 * The PostgreSQL loader gives exactly the table contents DuckDB's gives. Every batch an emulator
 * sync of every stream loads into DuckDB is recorded (the DuckDB destination's loadPreparedBatch, wrapped),
 * then loaded again into a fresh DuckDB file and into PostgreSQL, and every table compared row by
 * row; hand-made windows of every kind of table cover re-loads, faults and odd values.
 */

const recorder = vi.hoisted(() => ({ on: true, batches: [] as PreparedWindow[][] }));
const recorded = recorder.batches;
vi.mock('../../src/load/duckdb/window-batch.js', async (importOriginal) => {
  const orig = await importOriginal<typeof WindowBatch>();
  return {
    ...orig,
    loadPreparedBatch: async (...args: Parameters<typeof orig.loadPreparedBatch>): Promise<void> => {
      await orig.loadPreparedBatch(...args);
      if (recorder.on) recorder.batches.push([...args[1]]);
    },
  };
});

const ALL_STREAMS =
  'visitors,views,searches,feedback,assistant,caller_stats,feedback_by_page,assistant_threads,visitors_weekly,visitors_monthly';

/** Every table a loader writes, and the window ledger. */
const LOADED = [
  'site_daily',
  'page_daily',
  'site_views_daily',
  'page_views_daily',
  'site_weekly',
  'page_weekly',
  'site_monthly',
  'page_monthly',
  'search_daily',
  'search_totals_daily',
  'assistant_callers_daily',
  'feedback_page_daily',
  'feedback',
  'assistant_turns',
  'assistant_messages',
  'assistant_threads',
  'sync_windows',
];

/** loaded_at of every load: the same instant on both destinations, so they compare. */
const NOW = new Date('2026-11-25T01:02:03.456Z');

const runIf = hasPostgres();

describe.skipIf(!runIf)('loading prepared windows into PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let emu: Emulator | undefined;
  let client: pg.Client;
  let duck: Database | undefined;

  beforeAll(async () => {
    const today = todayUtc();
    [server, emu] = await Promise.all([
      startPrivatePostgres(),
      startEmulator({ seed: 20, days: 40, paths: 40 }),
    ]);
    const summary = await runSync(
      emulatorSyncOptions(emu, tempDbPath(), {
        streams: parseStreams(ALL_STREAMS),
        from: addDays(today, -40),
        includeToday: true,
        periodPages: true,
        maxThreads: 10_000,
      }),
    );
    expect(summary.status).toBe('succeeded');
    // The sync's batches, and none of the test's own loads.
    recorder.on = false;
    duck = await openDatabase(tempDbPath());
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema: 'load "test"' });
  }, 240_000);

  afterAll(async () => {
    await client?.end();
    duck?.close();
    await emu?.close();
    await server?.stop();
  });

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    for (const t of LOADED) {
      await duck!.connection.run(`DELETE FROM ${t}`);
      await client.query(`DELETE FROM ${t}`);
    }
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function loadBoth(batch: readonly PreparedWindow[]): Promise<void> {
    await loadPreparedBatch(duck!, batch);
    await loadPreparedBatchPostgres(client, batch);
  }

  async function pgTables(): Promise<Record<string, Canonical[][]>> {
    const out: Record<string, Canonical[][]> = {};
    for (const t of LOADED) out[t] = (await pgCanonical(client, `SELECT * FROM ${t}`)).rows;
    return out;
  }

  async function expectSameTables(): Promise<void> {
    for (const t of LOADED) {
      const d = await duckCanonical(duck!.connection, `SELECT * FROM ${t}`);
      const p = await pgCanonical(client, `SELECT * FROM ${t}`);
      expect(p.columns, t).toEqual(d.columns);
      expect(p.rows, t).toEqual(d.rows);
    }
  }

  it('gives the same rows in every table as DuckDB for every stream of an emulator sync', async () => {
    expect(recorded.length).toBeGreaterThan(0);
    for (const batch of recorded) await loadBoth(batch);
    const tables = await pgTables();
    // Every table has rows: an empty table would compare equal and prove nothing.
    expect(LOADED.filter((t) => (tables[t] ?? []).length === 0)).toEqual([]);
    await expectSameTables();
  });

  it('changes nothing when the same windows load again, one batch at a time or all in one', async () => {
    for (const batch of recorded) await loadBoth(batch);
    const first = await pgTables();
    for (const batch of recorded) await loadBoth(batch);
    expect(await pgTables()).toEqual(first);
    await loadBoth(recorded.flat());
    expect(await pgTables()).toEqual(first);
    await expectSameTables();
  });

  /** One window of each kind of table, its values from `v` (1 wide, 2 narrower). */
  async function windowsOf(v: 1 | 2): Promise<PreparedWindow[]> {
    const n = v === 1 ? 3 : 1;
    const range = Array.from({ length: n }, (_, i) => i);
    const at = v === 1 ? '2026-11-20T00:00:00Z' : '2026-11-21T00:00:00.000001Z';
    return [
      visitorsWindow(
        'p1',
        '2026-11-02',
        range.map((i) => ({ path: `/v${v}/${i}`, human: i + v, ai: v, total: i + 2 * v })),
        at,
      ),
      searchWindow(
        'p1',
        '2026-11-02',
        range.map((i) => ({
          query: `q${i} v${v}`,
          hits: i + v,
          ctr: 0.1 * v,
          top_clicked_path: null,
          last_searched_at: at,
        })),
        at,
      ),
      await feedbackWindow(
        'p1',
        range.map((i) =>
          fb(`f${i}`, `2026-11-0${i + 3}T10:00:00.000Z`, { status: v === 1 ? 'pending' : 'resolved' }),
        ),
        {
          fetchedAt: at,
        },
      ),
      await assistantWindow(
        'p1',
        range.map((i) => turn(`t${i}`, `2026-11-1${i + 6}T10:00:00.000Z`, { query: `v${v}` })),
        {
          fetchedAt: at,
          truncated: v === 2,
        },
      ),
      await threadWindow(
        'p1',
        {
          threadId: 't0',
          createdAt: '2026-11-16T10:00:00.000Z',
          messages: range.map((i) => ({
            id: `m${i}`,
            role: 'user',
            content: `v${v}`,
            createdAt: '2026-11-16T10:00:00.000Z',
          })),
        },
        at,
      ),
    ];
  }

  it('replaces what a narrower re-load no longer has, keeps first_seen_at, and lets a truncated window only upsert', async () => {
    await loadBoth(await windowsOf(1));
    await expectSameTables();
    await loadBoth(await windowsOf(2));
    await expectSameTables();
    const count = async (t: string): Promise<number> =>
      Number((await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${t}`)).rows[0]?.n);
    expect(await count('page_daily')).toBe(1);
    expect(await count('search_daily')).toBe(1);
    expect(await count('assistant_messages')).toBe(1);
    // The truncated assistant week saw one turn: the two it did not reach stay.
    expect(await count('assistant_turns')).toBe(3);
    const f = await client.query('SELECT id, status, first_seen_at, last_seen_at FROM feedback');
    expect(f.rows).toEqual([
      {
        id: 'f0',
        status: 'resolved',
        first_seen_at: '2026-11-20T00:00:00.000Z',
        last_seen_at: '2026-11-21T00:00:00.000Z',
      },
    ]);
  });

  it('keeps event rows stamped exactly at the end of a narrower re-load, as DuckDB does', async () => {
    const narrower = (p: PreparedWindow, dateTo: string): PreparedWindow => ({ ...p, w: { ...p.w, dateTo } });
    await loadBoth([
      await feedbackWindow('p1', [
        fb('before', '2026-11-09T23:59:59.999999Z'),
        fb('edge', '2026-11-10T00:00:00Z'),
      ]),
      await assistantWindow('p1', [
        turn('T1', '2026-11-19T23:59:59.999Z'),
        turn('T2', '2026-11-20T00:00:00Z'),
      ]),
    ]);
    await loadBoth([
      narrower(await feedbackWindow('p1', [], { fetchedAt: '2026-11-21T00:00:00Z' }), '2026-11-10'),
      narrower(await assistantWindow('p1', [], { fetchedAt: '2026-11-21T00:00:00Z' }), '2026-11-20'),
    ]);
    await expectSameTables();
    expect((await client.query('SELECT id FROM feedback')).rows).toEqual([{ id: 'edge' }]);
    expect((await client.query('SELECT thread_id FROM assistant_turns')).rows).toEqual([{ thread_id: 'T2' }]);
  });

  it('lets the last window of a key win within one batch, as if they had loaded one by one', async () => {
    const oct = { month: '2026-10-01', fetchedAt: '2026-11-19T00:00:00Z' };
    const batch = [
      visitorsWindow('p1', '2026-11-02', [{ path: '/a', human: 1, ai: 0, total: 1 }]),
      await feedbackWindow('p1', [fb('x', '2026-11-03T10:00:00Z', { status: 'pending' }), fb('y', null)]),
      // October serves x too (its time says November) and y, which has no time: the later window wins both.
      await feedbackWindow(
        'p1',
        [fb('x', '2026-11-03T10:00:00Z', { status: 'dismissed' }), fb('y', null, { status: 'resolved' })],
        oct,
      ),
      visitorsWindow('p1', '2026-11-02', [{ path: '/b', human: 2, ai: 0, total: 2 }]),
      await feedbackWindow('p1', [fb('x', '2026-11-03T10:00:00Z', { status: 'resolved' })], {
        fetchedAt: '2026-11-21T00:00:00Z',
      }),
    ];
    await loadBoth(batch);
    await expectSameTables();
    const f = await client.query('SELECT id, status, window_start FROM feedback ORDER BY id');
    expect(f.rows).toEqual([
      { id: 'x', status: 'resolved', window_start: '2026-11-01' },
      { id: 'y', status: 'resolved', window_start: '2026-10-01' },
    ]);
    expect((await client.query('SELECT path FROM page_daily')).rows).toEqual([{ path: '/b' }]);
  });

  it('leaves every window of the batch all-old when a step fails, at whichever step', async () => {
    await loadBoth(await windowsOf(1));
    const old = await pgTables();
    const batch = await windowsOf(2);
    const steps: BatchStep[] = [];
    const stop = new Error('stopped at the last step');
    await expect(
      loadPreparedBatchPostgres(client, batch, {
        onStep: (s) => {
          steps.push(s);
          if (s === 'window') throw stop;
        },
      }),
    ).rejects.toThrow(InternalError);
    expect(steps).toEqual([
      'delete',
      'site',
      'pages',
      'delete',
      'pages',
      'delete',
      'pages',
      'delete',
      'pages',
      'delete',
      'pages',
      'window',
    ]);
    for (let at = 0; at < steps.length; at++) {
      let step = 0;
      const failed = await loadPreparedBatchPostgres(client, batch, {
        onStep: () => {
          if (step++ === at) throw new Error(`fault at step ${at}`);
        },
      }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(InternalError);
      const message = (failed as Error).message;
      expect(message).toMatch(
        /^loading a batch of 5 window\(s\) \(first p1 2026-11-02\) into PostgreSQL 127\.0\.0\.1:\d+\/\w+ failed \(every day of it keeps its previous data\): fault at step \d+$/,
      );
      expect(await pgTables()).toEqual(old);
    }
    await loadBoth(batch);
    await expectSameTables();
  });

  it('leaves the batch all-old when its connection dies in the middle, and the next load works', async () => {
    await loadBoth(await windowsOf(1));
    const old = await pgTables();
    const victim = new pg.Client({ connectionString: server!.url, types: PLAIN_TYPES });
    await victim.connect();
    victim.on('error', () => undefined);
    await victim.query(`SET search_path TO "load ""test"""`);
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const failed = await loadPreparedBatchPostgres(victim, await windowsOf(2), {
      onStep: async (s) => {
        if (s === 'pages') await client.query('SELECT pg_terminate_backend($1)', [pid]);
      },
    }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InternalError);
    await victim.end().catch(() => undefined);
    expect(await pgTables()).toEqual(old);
  });

  it('stores odd strings, a 5 MB comment, counts near 2^53 and microsecond times exactly as DuckDB does', async () => {
    const odd = [
      'tab\there',
      'new\nline',
      'cr\r\nlf',
      'back\\slash',
      '\\N',
      '\\.',
      "quote\"s 'and'",
      'emoji 🚀 文档',
      'comma,semi;',
      '\\t not a tab',
      '',
    ];
    const big = 'x'.repeat(5 * 2 ** 20);
    const huge = 2 ** 53 - 1;
    const batch = [
      visitorsWindow(
        'p1',
        '2026-11-02',
        odd.map((s, i) => ({ path: `/${s}/${i}`, human: huge - i, ai: i, total: huge })),
        '2026-11-20T00:00:00.000Z',
        { human: huge, ai: huge - 1, total: huge },
      ),
      searchWindow(
        'p1',
        '2026-11-02',
        odd.map((s, i) => ({
          query: s || 'empty',
          hits: huge - i,
          ctr: 0.1 + 0.2 * i,
          top_clicked_path: i % 2 === 0 ? null : s,
          last_searched_at: `2026-11-02T10:00:00.${String(i).padStart(6, '0')}Z`,
        })),
      ),
      await feedbackWindow('p1', [
        ...odd.map((s, i) =>
          fb(`odd-${i}`, `2026-11-03T10:00:00.00000${i % 10}Z`, { comment: s, path: `/${s}` }),
        ),
        fb('big', '2026-11-04T00:00:00.123456Z', { comment: big }),
        fb('no-time', null, { comment: null }),
        fb('code', '2026-11-05T00:00:00Z', {
          source: 'code_snippet',
          code: 'a\tb\\n',
          filename: 'f.ts',
          lang: 'ts',
        } as never),
      ]),
      await assistantWindow('p1', [
        ...odd.map((s, i) =>
          turn(`th-${i}`, `2026-11-17T10:00:00.00000${i % 10}Z`, {
            query: s,
            response: s,
            sources: [{ title: s, url: `https://x/${s}` }],
          }),
        ),
        turn('no-sources', '2026-11-18T00:00:00Z', { sources: [] }),
      ]),
      await threadWindow('p1', {
        threadId: 'th-0',
        createdAt: '2026-11-17T10:00:00.000001Z',
        messages: odd.map((s, i) => ({
          id: `m${i}`,
          role: 'assistant',
          content: s,
          createdAt: `2026-11-17T10:00:00.00000${i % 10}Z`,
        })),
      }),
    ];
    await loadBoth(batch);
    await expectSameTables();
    const comment = await client.query<{ n: number }>(
      "SELECT length(comment) AS n FROM feedback WHERE id = 'big'",
    );
    expect(comment.rows[0]?.n).toBe(big.length);
    const counts = await client.query("SELECT human FROM page_daily WHERE path = '/tab\there/0'");
    expect(counts.rows).toEqual([{ human: huge }]);
  });

  it('stores NUL and unpaired surrogates as U+FFFD on both destinations alike, in text and in JSON columns', async () => {
    const odd = 'a\u0000b \ud800 \udc00 😀';
    const stored = 'a\ufffdb \ufffd \ufffd 😀';
    await loadBoth([
      await feedbackWindow('p1', [fb('a', '2026-11-03T10:00:00Z', { comment: odd, path: `/${odd}` })]),
      await assistantWindow('p1', [
        turn('a', '2026-11-17T10:00:00Z', { query: odd, sources: [{ title: odd, url: odd }] }),
      ]),
      searchWindow('p1', '2026-11-02', [
        { query: odd, hits: 1, ctr: 0, top_clicked_path: odd, last_searched_at: null },
      ]),
      visitorsWindow('p1', '2026-11-02', [{ path: `/${odd}`, human: 1, ai: 0, total: 1 }]),
    ]);
    await expectSameTables();
    const one = async (sql: string): Promise<unknown> => (await client.query(sql)).rows[0];
    expect(await one('SELECT comment, path FROM feedback')).toEqual({ comment: stored, path: `/${stored}` });
    expect(await one('SELECT query, sources FROM assistant_turns')).toEqual({
      query: stored,
      sources: [{ title: stored, url: stored }],
    });
    expect(await one('SELECT query, top_clicked_path FROM search_daily')).toEqual({
      query: stored,
      top_clicked_path: stored,
    });
    expect(await one('SELECT path FROM page_daily')).toEqual({ path: `/${stored}` });
  });

  it('names a window whose load failed without the row text the driver quoted, on both destinations', async () => {
    const secret = "a reader's secret words";
    await loadBoth([await feedbackWindow('p1', [fb('a', '2026-11-03T10:00:00Z', { comment: 'old' })])]);
    const good = await feedbackWindow('p1', [fb('a', '2026-11-03T10:00:00Z', { comment: secret })]);
    // Text DuckDB's JSON reader cannot read (it quotes its input) and PostgreSQL's JSON.parse
    // neither (V8 quotes it too); a count PostgreSQL cannot read (it quotes the value).
    const broken = { ...good, data: { chunks: [{ rows: 1, body: `[{"id":"a","comment":"${secret}"` }] } };
    const badCount = searchWindow('p1', '2026-11-02', [
      {
        query: 'q',
        hits: secret as unknown as number,
        ctr: 0,
        top_clicked_path: null,
        last_searched_at: null,
      },
    ]);
    const failures: string[] = [];
    for (const w of [broken, badCount]) {
      for (const load of [
        () => loadPreparedBatch(duck!, [w]),
        () => loadPreparedBatchPostgres(client, [w]),
      ]) {
        const e = await load().catch((x: unknown) => x);
        if (e instanceof Error) failures.push(e.message);
      }
    }
    // DuckDB reads a count it cannot convert as NULL: NOT NULL refuses it, quoting nothing.
    expect(failures).toHaveLength(4);
    for (const m of failures) {
      expect(m).toMatch(
        /^loading p1 (feedback 2026-11-01|searches 2026-11-02) into .* failed \(the day keeps its previous data\): /,
      );
      expect(m).not.toMatch(/secret|reader/);
    }
    expect(failures[1]).toMatch(/: (Expected|Unexpected) /);
    expect(failures[3]).toMatch(/^.*: invalid input syntax for type bigint: "…"$/);
    expect((await client.query('SELECT comment FROM feedback')).rows).toEqual([{ comment: 'old' }]);
    await expectSameTables();
  });

  it('records a failed window like DuckDB: never downgrading a loaded one, updating a failed one', async () => {
    await loadBoth([visitorsWindow('p1', '2026-11-02', [{ path: '/', human: 1, ai: 0, total: 1 }])]);
    const failure = (day: string, error: string): WindowFailure => ({
      projectId: 'p1',
      day,
      runId: 'r2',
      error,
      attempts: 3,
      fetchedAt: new Date('2026-11-22T00:00:00.123Z'),
    });
    for (const f of [
      failure('2026-11-02', 'boom'),
      failure('2026-11-03', 'first'),
      failure('2026-11-03', 'second\nline'),
    ]) {
      const d = await markWindowFailed(duck!.session, f);
      const p = await markWindowFailedPostgres(client, f);
      expect(p).toBe(d);
    }
    await markWindowFailedPostgres(client, {
      ...failure('2026-11-01', 'feedback'),
      stream: 'feedback',
      dateTo: '2026-12-01',
    });
    await markWindowFailed(duck!.session, {
      ...failure('2026-11-01', 'feedback'),
      stream: 'feedback',
      dateTo: '2026-12-01',
    });
    await expectSameTables();
    const rows = await client.query(
      "SELECT window_start, status, error FROM sync_windows WHERE project_id = 'p1' ORDER BY 1",
    );
    expect(rows.rows.map((r: { status: string }) => r.status)).toEqual(['failed', 'loaded', 'failed']);
  });
});
