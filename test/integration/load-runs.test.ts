import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import {
  appendLedger,
  averagePagesPerWindow,
  finishRun,
  markStaleRuns,
  readDeferredDays,
  readLedgerSince,
  readRecentRuns,
  readSyncState,
  startRun,
  updateRun,
  type LedgerRow,
  type RunFinish,
} from '../../src/load/runs.js';
import { loadWindow } from '../../src/load/duckdb/visitor-windows.js';
import { markWindowFailed } from '../../src/load/failed-windows.js';
import { type WindowLoad } from '../../src/load/site-page-rows.js';
import { tempDir } from '../helpers/duckdb-temp.js';

let cleanup: () => void;
let db: Database;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'runs.duckdb'));
});
afterAll(() => {
  db.close();
  cleanup();
});
beforeEach(async () => {
  await db.connection.run(
    'DELETE FROM sync_runs; DELETE FROM api_requests; DELETE FROM sync_windows; DELETE FROM site_daily; DELETE FROM page_daily;',
  );
});

function win(projectId: string, day: string, over: Partial<WindowLoad> = {}): WindowLoad {
  return {
    projectId,
    day,
    site: { human: 1, ai: 1, total: 2 },
    pages: [{ path: '/', human: 1, ai: 1, total: 2 }],
    partial: false,
    pagesFetched: 1,
    attempts: 1,
    runId: 'r',
    fetchedAt: new Date('2024-03-10T00:00:00.000Z'),
    apiTotalsTotal: 2,
    ...over,
  };
}

const finish: Omit<RunFinish, 'runId'> = {
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

describe('run records', () => {
  it('records a run from start through progress to finish', async () => {
    await startRun(db.session, {
      runId: 'run-a',
      projectIds: ['p1', 'p2'],
      dateFrom: '2024-02-01',
      dateTo: '2024-03-01',
      windowsPlanned: 58,
      plannedDays: ['p1:2024-02-01', 'p2:2024-02-01'],
      startedAt: new Date('2024-03-10T01:00:00.000Z'),
    });
    expect(await readRecentRuns(db.session, 5)).toEqual([
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
        // Until it finishes, the whole plan is what a kill would leave for the next run.
        deferredDays: ['p1:2024-02-01', 'p2:2024-02-01'],
      },
    ]);

    await updateRun(db.session, { runId: 'run-a', windowsLoaded: 5, requests: 9 });
    await updateRun(db.session, { runId: 'run-a', retries: 1 });
    expect(await readRecentRuns(db.session, 1)).toMatchObject([
      { windowsLoaded: 5, requests: 9, retries: 1, status: 'running' },
    ]);

    await finishRun(db.session, {
      ...finish,
      runId: 'run-a',
      status: 'incomplete',
      deferredDays: ['p1:2024-02-27', 'p2:2024-02-28'],
    });
    expect(await readRecentRuns(db.session, 1)).toMatchObject([
      {
        runId: 'run-a',
        status: 'incomplete',
        finishedAt: '2024-03-10T01:02:03.456Z',
        windowsLoaded: 28,
        windowsFailed: 1,
        windowsDeferred: 2,
        requests: 40,
        retries: 3,
        rowsLoaded: 7000,
        warnings: 1,
        deferredDays: ['p1:2024-02-27', 'p2:2024-02-28'],
      },
    ]);
  });

  it('records a run with no planned range', async () => {
    await startRun(db.session, {
      runId: 'r0',
      projectIds: [],
      dateFrom: null,
      dateTo: null,
      windowsPlanned: 0,
      plannedDays: [],
      startedAt: new Date(),
    });
    expect(await readRecentRuns(db.session, 1)).toMatchObject([
      { runId: 'r0', projectIds: [], dateFrom: null, dateTo: null },
    ]);
  });

  it('lists the latest runs first, up to the limit', async () => {
    for (const [id, at] of [
      ['old', '2024-03-01T00:00:00Z'],
      ['new', '2024-03-03T00:00:00Z'],
      ['mid', '2024-03-02T00:00:00Z'],
    ] as const) {
      await startRun(db.session, {
        runId: id,
        projectIds: ['p'],
        dateFrom: null,
        dateTo: null,
        windowsPlanned: 1,
        plannedDays: [],
        startedAt: new Date(at),
      });
    }
    expect((await readRecentRuns(db.session, 2)).map((r) => r.runId)).toEqual(['new', 'mid']);
  });

  it('marks runs left running by a killed process as failed, and only those', async () => {
    const start = {
      projectIds: ['p'],
      dateFrom: null,
      dateTo: null,
      windowsPlanned: 1,
      plannedDays: [],
      startedAt: new Date('2024-03-01T00:00:00Z'),
    };
    await startRun(db.session, { ...start, runId: 'killed' });
    await startRun(db.session, { ...start, runId: 'done' });
    await finishRun(db.session, { ...finish, runId: 'done' });
    expect(await markStaleRuns(db.session)).toBe(1);
    const runs = new Map((await readRecentRuns(db.session, 10)).map((r) => [r.runId, r]));
    expect(runs.get('killed')).toMatchObject({
      status: 'failed',
      error: 'process ended without finishing (killed?)',
    });
    expect(runs.get('killed')?.finishedAt).not.toBeNull();
    expect(runs.get('done')).toMatchObject({ status: 'succeeded', error: null });
  });
});

describe('request ledger', () => {
  const t0 = Date.parse('2024-03-10T10:00:00.000Z');
  const row = (at: number, seq: number, over: Partial<LedgerRow> = {}): LedgerRow => ({
    at,
    seq,
    endpoint: 'visitors',
    projectId: 'p1',
    status: 200,
    durationMs: 120,
    runId: 'r1',
    ...over,
  });

  it('gives back when each request finished (sent + duration), ascending, to the millisecond', async () => {
    await appendLedger(db.session, [
      row(t0 + 5_000, 2),
      row(t0 - 1, 0),
      row(t0, 1, { status: null, projectId: null, runId: null }),
      row(t0 + 5_000, 3, { status: 429 }),
      row(t0 + 1_234, 4, { endpoint: 'agent.create' }),
    ]);
    // The server counts a request somewhere between sending and the answer; the budget
    // counts it from the answer, which is never too early.
    const d = 120;
    expect(await readLedgerSince(db.session, t0 + d)).toEqual([
      t0 + d,
      t0 + 1_234 + d,
      t0 + 5_000 + d,
      t0 + 5_000 + d,
    ]);
    expect(await readLedgerSince(db.session, t0 + d, { endpoints: ['visitors'] })).toEqual([
      t0 + d,
      t0 + 5_000 + d,
      t0 + 5_000 + d,
    ]);
    expect(await readLedgerSince(db.session, t0 + 5_000 + d + 1)).toEqual([]);
    const stored = await db.connection.runAndReadAll(
      'SELECT status, project_id, run_id FROM api_requests WHERE seq = 1',
    );
    expect(stored.getRowObjectsJson()).toEqual([{ status: null, project_id: null, run_id: null }]);
  });

  it('appends thousands of rows in one call', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => row(t0 + i, i));
    await appendLedger(db.session, rows);
    await appendLedger(db.session, []);
    const back = await readLedgerSince(db.session, t0);
    expect(back).toHaveLength(5_000);
    expect(back[4_999]).toBe(t0 + 4_999 + 120);
  });
});

describe('sync state', () => {
  it('lists loaded, partial and failed days of one project, sorted', async () => {
    await loadWindow(db, win('p1', '2024-03-03'));
    await loadWindow(db, win('p1', '2024-03-01'));
    // Partial: fetched before the day was over (what --include-today does).
    const midday = new Date('2024-03-05T12:00:00.000Z');
    await loadWindow(db, win('p1', '2024-03-05', { partial: true, fetchedAt: midday }));
    await loadWindow(db, win('p2', '2024-03-02'));
    const failure = { projectId: 'p1', runId: 'r', error: 'x', attempts: 6, fetchedAt: new Date() };
    await markWindowFailed(db.session, { ...failure, day: '2024-03-04' });
    await markWindowFailed(db.session, { ...failure, day: '2024-03-02' });
    await markWindowFailed(db.session, { ...failure, day: '2024-03-03' });
    const state = await readSyncState(db.session, 'p1');
    expect(state).toMatchObject({
      loadedDays: ['2024-03-01', '2024-03-03', '2024-03-05'],
      partialDays: ['2024-03-05'],
      failedDays: ['2024-03-02', '2024-03-04'],
    });
    const at = Date.parse('2024-03-10T00:00:00.000Z');
    expect([...state.fetchedAt]).toEqual([
      ['2024-03-01', at],
      ['2024-03-03', at],
      ['2024-03-05', midday.getTime()],
    ]);
    expect(await readSyncState(db.session, 'nobody')).toEqual({
      loadedDays: [],
      partialDays: [],
      failedDays: [],
      truncatedDays: [],
      fetchedAt: new Map(),
      windowEnds: new Map(),
      rowlessDays: [],
    });
  });

  it('lists days deferred by incomplete runs until a later window loads them', async () => {
    const start = {
      projectIds: ['p1', 'p2'],
      dateFrom: null,
      dateTo: null,
      windowsPlanned: 9,
      plannedDays: [],
    };
    await startRun(db.session, { ...start, runId: 'r1', startedAt: new Date('2024-03-10T00:00:00Z') });
    await finishRun(db.session, {
      ...finish,
      runId: 'r1',
      status: 'incomplete',
      deferredDays: ['p1:2024-03-03', 'p1:2024-03-01', 'p2:2024-03-02', 'p1:2024-03-04'],
    });
    await startRun(db.session, { ...start, runId: 'r2', startedAt: new Date('2024-03-11T00:00:00Z') });
    await finishRun(db.session, {
      ...finish,
      runId: 'r2',
      status: 'succeeded',
      deferredDays: ['p1:2024-03-09'],
    });
    // Loaded by a later run: no longer deferred. Loaded before r1 deferred it: still deferred.
    await loadWindow(db, win('p1', '2024-03-03', { fetchedAt: new Date('2024-03-11T00:05:00Z') }));
    await loadWindow(db, win('p1', '2024-03-04', { fetchedAt: new Date('2024-03-09T00:05:00Z') }));
    expect(await readDeferredDays(db.session, 'p1')).toEqual(['2024-03-01', '2024-03-04']);
    expect(await readDeferredDays(db.session, 'p2')).toEqual(['2024-03-02']);
    expect(await readDeferredDays(db.session, 'p')).toEqual([]);
  });

  it('lists the unloaded days of a run that was killed or failed, from the plan it recorded at start', async () => {
    const start = { projectIds: ['p1'], dateFrom: null, dateTo: null, windowsPlanned: 3 };
    const plannedDays = ['p1:2024-03-01', 'p1:2024-03-02', 'p1:2024-03-03'];
    await startRun(db.session, {
      ...start,
      plannedDays,
      runId: 'killed',
      startedAt: new Date('2024-03-10T00:00:00Z'),
    });
    await loadWindow(db, win('p1', '2024-03-02', { fetchedAt: new Date('2024-03-10T00:01:00Z') }));
    // While it runs, its plan is not "deferred": it is still being worked on.
    expect(await readDeferredDays(db.session, 'p1')).toEqual([]);
    await markStaleRuns(db.session);
    expect(await readDeferredDays(db.session, 'p1')).toEqual(['2024-03-01', '2024-03-03']);
  });

  it('averages the API pages per loaded window for the ETA', async () => {
    expect(await averagePagesPerWindow(db.session, 'p1')).toBeUndefined();
    await loadWindow(db, win('p1', '2024-03-01', { pagesFetched: 1 }));
    await loadWindow(db, win('p1', '2024-03-02', { pagesFetched: 4 }));
    await markWindowFailed(db.session, {
      projectId: 'p1',
      day: '2024-03-03',
      runId: 'r',
      error: 'x',
      attempts: 1,
      fetchedAt: new Date(),
    });
    expect(await averagePagesPerWindow(db.session, 'p1')).toBe(2.5);
  });
});
