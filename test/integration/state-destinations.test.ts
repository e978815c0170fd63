import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import {
  appendLedger,
  averagePagesPerWindow,
  finishRun,
  markStaleRuns,
  pagesByWindow,
  readDeferredDays,
  readLedgerSince,
  readRecentRuns,
  readSyncState,
  recountRunRequests,
  startRun,
  updateRun,
  type LedgerRow,
  type RunFinish,
  type RunStart,
} from '../../src/load/runs.js';
import { isoTime, type SqlSession } from '../../src/load/session.js';
import { markWindowFailed } from '../../src/load/failed-windows.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * The run records, the request ledger and the sync state behave the same on both destinations:
 * every test runs once on a DuckDB file and once on a PostgreSQL schema, through a SqlSession.
 */

const PG = hasPostgres();
const sessions = new Map<string, SqlSession>();
let duck: Database;
let server: PostgresServer | undefined;
let client: pg.Client | undefined;

beforeAll(async () => {
  duck = await openDatabase(tempDbPath('state.duckdb'));
  sessions.set('duckdb', duckSession(duck.connection));
  if (!PG) return;
  server = await startPostgres();
  client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
  await client.connect();
  await migratePostgres(client, { schema: 'state test' });
  sessions.set('postgres', pgSession(client));
}, 120_000);

afterAll(async () => {
  duck.close();
  await client?.end();
  await server?.stop();
});

const T0 = Date.parse('2024-03-10T10:00:00.000Z');

const START: Omit<RunStart, 'runId' | 'startedAt'> = {
  projectIds: ['p1'],
  dateFrom: null,
  dateTo: null,
  windowsPlanned: 1,
  plannedDays: [],
};

const FINISH: Omit<RunFinish, 'runId'> = {
  status: 'succeeded',
  windowsLoaded: 28,
  windowsFailed: 1,
  windowsDeferred: 2,
  requests: 40,
  retries: 3,
  rowsLoaded: 7000,
  warnings: 1,
  error: null,
  deferredDays: [],
  finishedAt: new Date('2024-03-10T01:02:03.456Z'),
};

function request(at: number, seq: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    at,
    seq,
    endpoint: 'visitors',
    projectId: 'p1',
    status: 200,
    durationMs: 120,
    runId: 'r1',
    ...over,
  };
}

interface Win {
  projectId?: string;
  stream?: string;
  day: string;
  end?: string;
  status?: 'loaded' | 'failed';
  pages?: number;
  rows?: number;
  apiTotal?: number | null;
  fetchedAt?: string;
  runId?: string;
  truncated?: boolean;
}

/** A sync_windows row as a loader leaves it (the loaders have their own tests). */
async function putWindow(s: SqlSession, w: Win): Promise<void> {
  await s.run(
    `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
       api_totals_total, attempts, fetched_at, run_id, error)
     VALUES ($1, $2, $3::DATE, coalesce($4::DATE, $3::DATE + 1), $5, $6::INTEGER, $7::INTEGER, $8,
       $9::BIGINT, 1, $10::TIMESTAMPTZ, $11, NULL)`,
    [
      w.projectId ?? 'p1',
      w.stream ?? 'visitors',
      w.day,
      w.end ?? null,
      w.status ?? 'loaded',
      w.pages ?? 1,
      w.rows ?? 2,
      w.truncated ?? false,
      w.apiTotal === undefined ? 2 : w.apiTotal,
      w.fetchedAt ?? '2024-03-10T00:00:00.000Z',
      w.runId ?? 'r',
    ],
  );
}

describe.each(['duckdb', 'postgres'])('state on %s', (dest) => {
  const skip = dest === 'postgres' && !PG;
  let s: SqlSession;

  beforeEach(async () => {
    if (skip) return;
    s = sessions.get(dest) as SqlSession;
    for (const t of ['sync_runs', 'api_requests', 'sync_windows']) await s.run(`DELETE FROM ${t}`);
  });

  describe.skipIf(skip)('run records', () => {
    it('records a run from start through progress to finish', async () => {
      await startRun(s, {
        runId: 'run-a',
        projectIds: ['p1', 'p2'],
        streams: ['visitors', 'feedback'],
        dateFrom: '2024-02-01',
        dateTo: '2024-03-01',
        windowsPlanned: 58,
        plannedDays: ['p1:2024-02-01', 'p2:2024-02-01'],
        startedAt: new Date('2024-03-10T01:00:00.000Z'),
      });
      expect(await readRecentRuns(s, 5)).toEqual([
        {
          runId: 'run-a',
          projectIds: ['p1', 'p2'],
          startedAt: '2024-03-10T01:00:00.000Z',
          finishedAt: null,
          status: 'running',
          dateFrom: '2024-02-01',
          dateTo: '2024-03-01',
          windowsPlanned: 58,
          windowsLoaded: 0,
          windowsFailed: 0,
          windowsDeferred: 0,
          requests: 0,
          retries: 0,
          rowsLoaded: 0,
          warnings: 0,
          error: null,
          deferredDays: ['p1:2024-02-01', 'p2:2024-02-01'],
        },
      ]);
      expect(await s.rows('SELECT streams FROM sync_runs')).toEqual([{ streams: ['visitors', 'feedback'] }]);

      await updateRun(s, { runId: 'run-a', windowsLoaded: 5, requests: 9, windowsPlanned: 60 });
      await updateRun(s, { runId: 'run-a', retries: 1 });
      await updateRun(s, { runId: 'run-a' });
      expect(await readRecentRuns(s, 1)).toMatchObject([
        { windowsLoaded: 5, requests: 9, retries: 1, windowsPlanned: 60, status: 'running' },
      ]);

      await finishRun(s, {
        ...FINISH,
        runId: 'run-a',
        status: 'failed',
        rowsLoaded: 3_000_000_000,
        error: 'boom\nsecond line\u001b[31m',
        deferredDays: ['p1:2024-02-27', 'p2:2024-02-28'],
      });
      const [run] = await readRecentRuns(s, 1);
      expect(run).toMatchObject({
        status: 'failed',
        finishedAt: '2024-03-10T01:02:03.456Z',
        windowsLoaded: 28,
        windowsFailed: 1,
        windowsDeferred: 2,
        requests: 40,
        retries: 3,
        rowsLoaded: 3_000_000_000,
        warnings: 1,
        deferredDays: ['p1:2024-02-27', 'p2:2024-02-28'],
      });
      // Made safe like any output: one line, no terminal escapes.
      expect(run?.error).not.toContain('\n');
      expect(run?.error).not.toContain('\u001b');
      expect(run?.error).toMatch(/^boom/);
    });

    it('records a run with no projects, no plan and no range', async () => {
      await startRun(s, { ...START, runId: 'r0', projectIds: [], startedAt: new Date(T0) });
      expect(await readRecentRuns(s, 1)).toMatchObject([
        { runId: 'r0', projectIds: [], dateFrom: null, dateTo: null, deferredDays: [] },
      ]);
    });

    it('lists the latest runs first, up to the limit', async () => {
      for (const [id, at] of [
        ['old', '2024-03-01T00:00:00Z'],
        ['new', '2024-03-03T00:00:00Z'],
        ['mid', '2024-03-02T00:00:00Z'],
      ] as const) {
        await startRun(s, { ...START, runId: id, startedAt: new Date(at) });
      }
      expect((await readRecentRuns(s, 2)).map((r) => r.runId)).toEqual(['new', 'mid']);
      expect(await readRecentRuns(s, 0)).toEqual([]);
    });

    it('marks runs left running as failed, counting what they loaded, and only those', async () => {
      await startRun(s, { ...START, runId: 'killed', startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'done', startedAt: new Date(T0) });
      await finishRun(s, { ...FINISH, runId: 'done' });
      await putWindow(s, { day: '2024-03-01', rows: 10, runId: 'killed' });
      await putWindow(s, { day: '2024-03-02', rows: 5, runId: 'killed' });
      await putWindow(s, { day: '2024-03-03', status: 'failed', rows: 0, runId: 'killed' });
      expect(await markStaleRuns(s)).toBe(1);
      expect(await markStaleRuns(s)).toBe(0);
      const runs = new Map((await readRecentRuns(s, 10)).map((r) => [r.runId, r]));
      expect(runs.get('killed')).toMatchObject({
        status: 'failed',
        error: 'process ended without finishing (killed?)',
        windowsLoaded: 2,
        rowsLoaded: 15,
      });
      expect(runs.get('killed')?.finishedAt).not.toBeNull();
      expect(runs.get('done')).toMatchObject({ status: 'succeeded', error: null, windowsLoaded: 28 });
    });

    it('marks as stale only the runs sharing a project with the ones locked, when told which', async () => {
      await startRun(s, { ...START, runId: 'ours', projectIds: ['a', 'b'], startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'overlap', projectIds: ['b', 'x'], startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'theirs', projectIds: ['x', 'y'], startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'none', projectIds: [], startedAt: new Date(T0) });
      expect(await markStaleRuns(s, { projectIds: ['a', 'b'] })).toBe(2);
      const status = new Map((await readRecentRuns(s, 10)).map((r) => [r.runId, r.status]));
      expect(Object.fromEntries(status)).toEqual({
        ours: 'failed',
        overlap: 'failed',
        theirs: 'running',
        none: 'running',
      });
      expect(await markStaleRuns(s, { projectIds: [] })).toBe(0);
    });

    it('recounts the requests of the runs named from the ledger, never downwards', async () => {
      await startRun(s, { ...START, runId: 'r1', startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'r2', startedAt: new Date(T0) });
      await startRun(s, { ...START, runId: 'r3', startedAt: new Date(T0) });
      await updateRun(s, { runId: 'r2', requests: 50 });
      await appendLedger(s, [
        request(T0, 0),
        request(T0, 1),
        request(T0, 2),
        request(T0, 3, { runId: 'r2' }),
        request(T0, 4, { runId: 'r3' }),
      ]);
      await recountRunRequests(s, ['r1', 'r2']);
      await recountRunRequests(s, []);
      const counts = await s.rows('SELECT run_id, requests FROM sync_runs ORDER BY run_id');
      expect(counts).toEqual([
        { run_id: 'r1', requests: 3 },
        { run_id: 'r2', requests: 50 },
        { run_id: 'r3', requests: 0 },
      ]);
      // The list of runs shows what the ledger holds when the row lags behind.
      expect(new Map((await readRecentRuns(s, 5)).map((r) => [r.runId, r.requests])).get('r3')).toBe(1);
    });
  });

  describe.skipIf(skip)('request ledger', () => {
    it('gives back when each request was answered (sent + duration), ascending, to the millisecond', async () => {
      await appendLedger(s, [
        request(T0 + 5_000, 2),
        request(T0 - 1, 0),
        request(T0, 1, { status: null, projectId: null, runId: null }),
        request(T0 + 5_000, 3, { status: 429 }),
        request(T0 + 1_234, 4, { endpoint: 'agent.create' }),
      ]);
      const d = 120;
      expect(await readLedgerSince(s, T0 + d)).toEqual([
        T0 + d,
        T0 + 1_234 + d,
        T0 + 5_000 + d,
        T0 + 5_000 + d,
      ]);
      expect(await readLedgerSince(s, T0 + d, { endpoints: ['visitors'] })).toEqual([
        T0 + d,
        T0 + 5_000 + d,
        T0 + 5_000 + d,
      ]);
      expect(await readLedgerSince(s, T0 + 5_000 + d + 1)).toEqual([]);
      expect(
        await s.rows(
          'SELECT requested_at, status, project_id, run_id, budget_scope FROM api_requests WHERE seq = 1',
        ),
      ).toEqual([
        { requested_at: isoTime(T0), status: null, project_id: null, run_id: null, budget_scope: null },
      ]);
    });

    it('appends thousands of rows in one call', async () => {
      await appendLedger(
        s,
        Array.from({ length: 5_000 }, (_, i) => request(T0 + i, i)),
      );
      await appendLedger(s, []);
      const back = await readLedgerSince(s, T0);
      expect(back).toHaveLength(5_000);
      expect(back[4_999]).toBe(T0 + 4_999 + 120);
    });

    it('counts each budget scope its own requests, and rows without a scope for every scope', async () => {
      await appendLedger(s, [
        request(T0, 0, { budgetScope: 'key:aaaaaaaaaaaaaaaa' }),
        request(T0 + 1, 1, { budgetScope: 'key:aaaaaaaaaaaaaaaa' }),
        request(T0 + 2, 2, { budgetScope: 'acme-docs' }),
        // Written before scopes: nobody knows whose, so everybody counts it.
        request(T0 + 3, 3, { budgetScope: null }),
        request(T0 + 4, 4),
      ]);
      const at = (...offsets: number[]): number[] => offsets.map((o) => T0 + o + 120);
      expect(await readLedgerSince(s, T0, { budgetScope: 'key:aaaaaaaaaaaaaaaa' })).toEqual(at(0, 1, 3, 4));
      expect(await readLedgerSince(s, T0, { budgetScope: 'acme-docs' })).toEqual(at(2, 3, 4));
      expect(await readLedgerSince(s, T0, { budgetScope: 'nobody-yet' })).toEqual(at(3, 4));
      expect(await readLedgerSince(s, T0)).toEqual(at(0, 1, 2, 3, 4));
      expect(
        await readLedgerSince(s, T0, { budgetScope: 'acme-docs', endpoints: ['visitors', 'views'] }),
      ).toEqual(at(2, 3, 4));
      expect(await s.rows('SELECT budget_scope FROM api_requests ORDER BY seq')).toEqual([
        { budget_scope: 'key:aaaaaaaaaaaaaaaa' },
        { budget_scope: 'key:aaaaaaaaaaaaaaaa' },
        { budget_scope: 'acme-docs' },
        { budget_scope: null },
        { budget_scope: null },
      ]);
    });
  });

  describe.skipIf(skip)('sync state', () => {
    it('lists loaded, partial, failed, truncated and rowless windows of one project and stream, sorted', async () => {
      await putWindow(s, { day: '2024-03-03' });
      await putWindow(s, { day: '2024-03-01', truncated: true });
      // Partial: fetched before the day was over (what --include-today does).
      await putWindow(s, { day: '2024-03-05', fetchedAt: '2024-03-05T12:00:00.000Z' });
      await putWindow(s, { day: '2024-03-06', rows: 0, apiTotal: 7 });
      await putWindow(s, { day: '2024-03-07', rows: 0, apiTotal: null });
      await putWindow(s, { day: '2024-03-04', status: 'failed', rows: 0 });
      await putWindow(s, { projectId: 'p2', day: '2024-03-02' });
      await putWindow(s, { stream: 'feedback', day: '2024-02-01', end: '2024-03-01' });
      const state = await readSyncState(s, 'p1');
      expect(state).toMatchObject({
        loadedDays: ['2024-03-01', '2024-03-03', '2024-03-05', '2024-03-06', '2024-03-07'],
        partialDays: ['2024-03-05'],
        failedDays: ['2024-03-04'],
        truncatedDays: ['2024-03-01'],
        rowlessDays: ['2024-03-06'],
      });
      const at = Date.parse('2024-03-10T00:00:00.000Z');
      expect(state.fetchedAt.get('2024-03-01')).toBe(at);
      expect(state.fetchedAt.get('2024-03-05')).toBe(Date.parse('2024-03-05T12:00:00.000Z'));
      expect(state.windowEnds.get('2024-03-03')).toBe('2024-03-04');
      expect(await readSyncState(s, 'p1', 'feedback')).toMatchObject({
        loadedDays: ['2024-02-01'],
        windowEnds: new Map([['2024-02-01', '2024-03-01']]),
      });
      expect(await readSyncState(s, 'nobody')).toEqual({
        loadedDays: [],
        partialDays: [],
        failedDays: [],
        truncatedDays: [],
        fetchedAt: new Map(),
        windowEnds: new Map(),
        rowlessDays: [],
      });
    });

    it('records a failed window, but never over a loaded one', async () => {
      await putWindow(s, { day: '2024-03-02' });
      const failure = {
        projectId: 'p1',
        runId: 'r9',
        error: 'HTTP 500\nfrom server',
        attempts: 6,
        fetchedAt: new Date(T0),
      };
      expect(await markWindowFailed(s, { ...failure, day: '2024-03-01' })).toBe(true);
      expect(await markWindowFailed(s, { ...failure, day: '2024-03-02' })).toBe(false);
      expect(await markWindowFailed(s, { ...failure, day: '2024-03-01', attempts: 7 })).toBe(true);
      expect(
        await markWindowFailed(s, {
          ...failure,
          stream: 'feedback',
          day: '2024-02-01',
          dateTo: '2024-03-01',
        }),
      ).toBe(true);
      expect(
        await s.rows(
          `SELECT stream, window_start, window_end, status, attempts, fetched_at, run_id, error FROM sync_windows
           ORDER BY stream, window_start`,
        ),
      ).toEqual([
        {
          stream: 'feedback',
          window_start: '2024-02-01',
          window_end: '2024-03-01',
          status: 'failed',
          attempts: 6,
          fetched_at: isoTime(T0),
          run_id: 'r9',
          error: expect.stringMatching(/^HTTP 500[^\n]*from server$/) as unknown,
        },
        expect.objectContaining({ window_start: '2024-03-01', window_end: '2024-03-02', attempts: 7 }),
        expect.objectContaining({ window_start: '2024-03-02', status: 'loaded', run_id: 'r' }),
      ]);
    });

    it('lists days deferred by unfinished runs until a later window loads them', async () => {
      await startRun(s, { ...START, runId: 'r1', startedAt: new Date('2024-03-10T00:00:00Z') });
      await finishRun(s, {
        ...FINISH,
        runId: 'r1',
        status: 'incomplete',
        deferredDays: [
          'p1:visitors:2024-03-03',
          // Written before streams: a visitors day.
          'p1:2024-03-01',
          'p2:visitors:2024-03-02',
          'p1:visitors:2024-03-04',
          'p1:feedback:2024-02-01',
          // Not a day: ignored, not an error.
          'p1:visitors:2024-02-30',
          'p1:visitors:garbage!!!',
        ],
      });
      await startRun(s, { ...START, runId: 'r2', startedAt: new Date('2024-03-11T00:00:00Z') });
      await finishRun(s, { ...FINISH, runId: 'r2', deferredDays: ['p1:visitors:2024-03-09'] });
      // Loaded by a later run: no longer deferred. Loaded before r1 deferred it: still deferred.
      await putWindow(s, { day: '2024-03-03', fetchedAt: '2024-03-11T00:05:00.000Z' });
      await putWindow(s, { day: '2024-03-04', fetchedAt: '2024-03-09T00:05:00.000Z' });
      expect(await readDeferredDays(s, 'p1')).toEqual(['2024-03-01', '2024-03-04']);
      expect(await readDeferredDays(s, 'p1', 'feedback')).toEqual(['2024-02-01']);
      expect(await readDeferredDays(s, 'p2')).toEqual(['2024-03-02']);
      expect(await readDeferredDays(s, 'p')).toEqual([]);
    });

    it('lists the unloaded days of a killed run from the plan it recorded at start', async () => {
      await startRun(s, {
        ...START,
        plannedDays: ['p1:visitors:2024-03-01', 'p1:visitors:2024-03-02', 'p1:visitors:2024-03-03'],
        runId: 'killed',
        startedAt: new Date('2024-03-10T00:00:00Z'),
      });
      await putWindow(s, { day: '2024-03-02', fetchedAt: '2024-03-10T00:01:00.000Z', runId: 'killed' });
      expect(await readDeferredDays(s, 'p1')).toEqual([]);
      await markStaleRuns(s);
      expect(await readDeferredDays(s, 'p1')).toEqual(['2024-03-01', '2024-03-03']);
    });

    it('tells the pages each loaded window took, and their average over the 30 latest', async () => {
      expect(await averagePagesPerWindow(s, 'p1')).toBeUndefined();
      await putWindow(s, { day: '2024-03-01', pages: 1 });
      await putWindow(s, { day: '2024-03-02', pages: 4 });
      await putWindow(s, { day: '2024-03-03', pages: 9, status: 'failed' });
      await putWindow(s, { stream: 'feedback', day: '2024-02-01', end: '2024-03-01', pages: 12 });
      expect(await averagePagesPerWindow(s, 'p1')).toBe(2.5);
      expect([...(await pagesByWindow(s, 'p1', 'visitors'))]).toEqual([
        ['2024-03-01', 1],
        ['2024-03-02', 4],
      ]);
      expect([...(await pagesByWindow(s, 'p1', 'feedback'))]).toEqual([['2024-02-01', 12]]);
      for (let i = 1; i <= 30; i++)
        await putWindow(s, { day: `2024-04-${String(i).padStart(2, '0')}`, pages: 10 });
      expect(await averagePagesPerWindow(s, 'p1')).toBe(10);
    });
  });
});
