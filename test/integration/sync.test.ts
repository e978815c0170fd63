import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { addDays, dayRange } from '../../src/util/day.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { visitors } from '../../src/streams/visitors.js';
import type { Database } from '../../src/load/duckdb/database.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { startRun } from '../../src/load/runs.js';
import { markWindowFailed } from '../../src/load/failed-windows.js';
import { readData, readRows, tempDbPath } from '../helpers/db.js';
import { clockFrom, emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';
import { expectedRows, minimumRequests } from '../helpers/truth.js';
import { untilEpoch } from '../helpers/wait.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import type { OpenPurpose } from '../../src/load/destination.js';
import { countingPlace } from '../helpers/counting-place.js';

/** A fixed today (a Sunday, the last day of an ISO week and of a year); the clock ticks from it. */
const today = '2028-12-31';
const now = clockFrom(`${today}T08:00:00Z`);
const emulator = emulatorsPerTest({ seed: 7, days: 60, paths: 600, today });

function options(emu: Emulator, dbPath: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return emulatorSyncOptions(emu, dbPath, { streams: [visitors], now, ...over });
}

/** Writes into a test database the way an earlier run (or a killed one) would have left it. */
async function withDb(path: string, fn: (db: Database) => Promise<unknown>): Promise<void> {
  await withDuckFile(path, fn);
}

const sixtyDays = dayRange(addDays(today, -60), today);

describe('sync against the emulator', () => {
  it('loads 60 days that equal the ground truth row for row, edge days and odd paths included', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from: sixtyDays[0] }));
    expect(s.status).toBe('succeeded');
    expect(s.windows).toEqual({ planned: 60, loaded: 60, failed: 0, deferred: 0, dropped: 0 });
    const got = await readData(db);
    const want = expectedRows(emu.dataset, sixtyDays);
    expect(got.site).toEqual(want.site);
    expect(got.pages.length).toBe(want.pages.length);
    expect(got.pages).toEqual(want.pages);
    const edge = emu.dataset.edgeDays;
    const count = (d: string) => got.pages.filter((r) => r.day === d).length;
    expect([count(edge.empty), count(edge.rows250), count(edge.rows251), count(edge.rows500)]).toEqual([
      0, 250, 251, 500,
    ]);
    expect(got.pages.some((r) => r.path === '/docs/API')).toBe(true);
    expect(got.pages.some((r) => r.path === '/docs/api')).toBe(true);
    // A clean backfill spends exactly one request per 250 rows, at least one per day.
    expect(s.requests).toBe(minimumRequests(emu.dataset, sixtyDays));
    expect(emu.stats.requests).toBe(s.requests);
  });

  it('opens its file twice, to plan and to load, and writes the run record through the writer', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const opens: OpenPurpose[] = [];
    // One open more for the run's one row was a tenth of a nightly no-change run.
    const place = countingPlace(placeOf(parseDbTarget(db)), opens);
    const s = await runSync(options(emu, db, { from: sixtyDays[50], place }));
    expect(s.status).toBe('succeeded');
    expect(opens).toEqual(['write', 'writer']);
    const runs = await readRows(
      db,
      'SELECT status, windows_loaded, rows_loaded, finished_at IS NOT NULL AS done FROM sync_runs',
    );
    expect(runs).toEqual([
      { status: 'succeeded', windows_loaded: 10, rows_loaded: String(s.rows), done: true },
    ]);
  });

  it('returns exactly the truth with 30% of requests failing, and every retry is a fault', async () => {
    // The 429s ask for a fifth of a second (the client still waits what they ask), the slow answers
    // take 20 ms: their length is not what this test is about, and each 429 pauses the whole run.
    const emu = await emulator({ faults: 0.3, retryAfterSeconds: 0.2, slowMs: 20 });
    const db = tempDbPath();
    const days = sixtyDays.slice(-30);
    const s = await runSync(options(emu, db, { from: days[0] }));
    expect(s.status).toBe('succeeded');
    const got = await readData(db);
    expect(got).toEqual(expectedRows(emu.dataset, days));
    expect(emu.stats.faults).toBeGreaterThan(0);
    expect(s.requests).toBe(minimumRequests(emu.dataset, days) + emu.stats.faults);
  });

  it('survives a server whose hasMore is true on every full page', async () => {
    const emu = await emulator({ hasMoreOnFullPages: true });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from: sixtyDays[0] }));
    expect(s.status).toBe('succeeded');
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, sixtyDays));
  });

  it('leaves the tables identical when any range is synced again', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    await runSync(options(emu, db, { from: sixtyDays[0] }));
    const first = await readData(db);
    await runSync(options(emu, db, { from: sixtyDays[10], to: sixtyDays[40] }));
    await runSync(options(emu, db, { from: sixtyDays[0] }));
    expect(await readData(db)).toEqual(first);
    const dups = await readRows<{ n: bigint }>(
      db,
      'SELECT count(*) AS n FROM (SELECT project_id, day, path FROM page_daily GROUP BY ALL HAVING count(*) > 1)',
    );
    expect(Number(dups[0]?.n)).toBe(0);
  });

  // Backfilled up to yesterday, the days fetched today are not settled yet: the next run looks
  // back at the last three (and there is no new day yet). Backfilled up to five days ago, those
  // days were fetched more than --lookback days after they ended, so fetching them again could
  // not change them: a continued backfill pays only for its new days.
  it.each([
    ['after a full backfill, an incremental run fetches exactly the lookback days plus the new ones', 0, 3],
    [
      'does not look back at days already settled when fetched: a continued backfill pays only for new days',
      5,
      5,
    ],
  ])('%s', async (_name, endedDaysAgo, expectedCount) => {
    const emu = await emulator();
    const db = tempDbPath();
    await runSync(options(emu, db, { from: sixtyDays[0], to: addDays(today, -endedDaysAgo) }));
    emu.resetStats();
    const s = await runSync(options(emu, db));
    const expectedDays = dayRange(addDays(today, -expectedCount), today);
    expect(s.windows.planned).toBe(expectedDays.length);
    expect(s.requests).toBe(minimumRequests(emu.dataset, expectedDays));
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, sixtyDays));
  });

  it('loads the days a killed run never loaded, even those before the first loaded day', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const days = sixtyDays.slice(-10);
    // A run over 10 days that loaded only its last five before it was killed.
    await runSync(options(emu, db, { from: days[5] }));
    await withDb(db, (conn) =>
      startRun(conn.session, {
        runId: 'killed',
        projectIds: [emu.projectId],
        dateFrom: days[0] ?? null,
        dateTo: today,
        windowsPlanned: 10,
        plannedDays: days.map((d) => `${emu.projectId}:${d}`),
        startedAt: new Date(Date.now() - 60_000),
      }),
    );
    const s = await runSync(options(emu, db));
    expect(s.windows.loaded).toBeGreaterThanOrEqual(5);
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, days));
    // Told once is enough: the next run has nothing left from the killed one.
    const again = await runSync(options(emu, db, { lookback: 0 }));
    expect(again.windows.planned).toBe(0);
  });

  it('retries a day that failed after every retry in the next run', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const days = sixtyDays.slice(-6);
    await runSync(options(emu, db, { from: days[2] }));
    await withDb(db, (conn) =>
      markWindowFailed(conn.session, {
        projectId: emu.projectId,
        day: days[0] ?? '',
        runId: 'old',
        error: 'E_HTTP: 500',
        attempts: 6,
        fetchedAt: new Date(),
      }),
    );
    const s = await runSync(options(emu, db, { lookback: 0 }));
    expect(s.windows).toMatchObject({ planned: 1, loaded: 1 });
    const site = (await readData(db)).site.map((r) => r.day);
    expect(site).toEqual([days[0], ...days.slice(2)]);
  });

  it('stops at --max-requests, records the rest as deferred, and the next run finishes without being told', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const days = sixtyDays.slice(-20);
    const first = await runSync(options(emu, db, { from: days[0], maxRequests: 8, concurrency: 1 }));
    expect(first.status).toBe('incomplete');
    expect(first.exitCode).toBe(0);
    expect(first.stopReason).toBe('max-requests');
    expect(first.requests).toBeLessThanOrEqual(8);
    expect(first.windows.deferred).toBeGreaterThan(0);
    const second = await runSync(options(emu, db));
    expect(second.status).toBe('succeeded');
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, days));
  });

  it('spends --max-requests only on days it can finish: every request belongs to a loaded day', async () => {
    const emu = await emulator({ paths: 2_000 });
    const db = tempDbPath();
    const days = sixtyDays.slice(-20);
    // A first run gives the history of pages per day that the second one plans with.
    await runSync(options(emu, db, { from: days[0], to: days[3] }));
    const s = await runSync(options(emu, db, { from: days[3], maxRequests: 30 }));
    expect(s.stopReason).toBe('max-requests');
    const loaded = (await readData(db)).site.map((r) => r.day).filter((d) => d >= (days[3] ?? ''));
    expect(loaded.length).toBe(s.windows.loaded);
    expect(loaded.length).toBeGreaterThan(0);
    expect(s.requests).toBe(minimumRequests(emu.dataset, loaded));
    expect(s.requests).toBeLessThanOrEqual(30);
  });

  it('finishes whole days when the budget cannot serve every day in flight within --max-wait', async () => {
    const emu = await emulator({ paths: 2_000 });
    const db = tempDbPath();
    const days = sixtyDays.slice(-20);
    await runSync(options(emu, db, { from: days[0], to: days[2] }));
    // The history says how many pages a day takes. The next run counts the first run's requests
    // (sent before they arrived) against 20/1s: wait until the last arrival is a window old.
    await untilEpoch(Math.max(...emu.stats.log.map((l) => l.at)) + 1_000);
    emu.resetStats();
    const s = await runSync(
      options(emu, db, { from: days[2], rateLimit: parseRateLimit('20/1s'), maxWaitMs: 200 }),
    );
    expect(s.stopReason).toBe('max-wait');
    const loaded = (await readData(db)).site.map((r) => r.day).filter((d) => d >= (days[2] ?? ''));
    // Each day takes several pages: four days in flight sharing 20 requests finished none.
    expect(loaded.length).toBeGreaterThanOrEqual(2);
    expect(s.requests).toBe(minimumRequests(emu.dataset, loaded));
    expect(emu.stats.rateLimited).toBe(0);
  });

  it('never gets a 429 from a server limited to 40 requests per 4 s, and runs close to the budget floor', async () => {
    const emu = await emulator({ rateLimit: '40/4s' });
    const db = tempDbPath();
    // 35 days: 95 requests, so after the first 40 the budget holds the run back twice.
    const days = sixtyDays.slice(-35);
    const need = minimumRequests(emu.dataset, days);
    expect(need).toBeGreaterThan(80);
    const s = await runSync(options(emu, db, { from: days[0], rateLimit: parseRateLimit('40/4s') }));
    expect(emu.stats.rateLimited).toBe(0);
    expect(s.status).toBe('succeeded');
    expect(s.requests).toBe(need);
    const arrivals = emu.stats.log.map((l) => l.at).sort((a, b) => a - b);
    expect(arrivals).toHaveLength(need);
    // The budget's floor, seen by the server: any 41 arrivals span at least one 4 s window, so
    // after the first 40, each further 40 needs another window.
    for (let i = 40; i < arrivals.length; i++) {
      expect((arrivals[i] ?? 0) - (arrivals[i - 40] ?? 0)).toBeGreaterThanOrEqual(4_000);
    }
    const floor = Math.floor((need - 1) / 40) * 4_000;
    const span = (arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual(floor);
    // Close to the floor: no window wasted. Measured on the server's arrivals, so start-up and
    // loading are not in it; only the pacing is.
    expect(span).toBeLessThan(floor + 4_000);
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, days));
  }, 60_000);

  it('starts with the budget the previous run spent, from the request ledger', async () => {
    // An hour's window: nothing the first run spent can age out while the test runs, however slow
    // the machine, and the second run stops when the budget is spent instead of waiting an hour.
    const emu = await emulator({ rateLimit: '20/1h' });
    const db = tempDbPath();
    const days = sixtyDays.slice(-10);
    const firstDays = dayRange(days[0] ?? '', days[5] ?? '');
    const budget = { rateLimit: parseRateLimit('20/1h'), maxWaitMs: 1_000 };
    await runSync(options(emu, db, { from: days[0], to: days[5], concurrency: 1, ...budget }));
    const spent = emu.stats.requests;
    // The state is known: the first run fits in the window, the two together do not.
    expect(spent).toBe(minimumRequests(emu.dataset, firstDays));
    expect(spent).toBeLessThan(20);
    const s = await runSync(options(emu, db, { from: days[0], ...budget }));
    expect(s.budget.spentBefore).toBe(spent);
    // It sent no more than the ledger left of the 20, was never refused, and left the rest for later.
    expect(s.requests).toBeGreaterThan(0);
    expect(spent + s.requests).toBeLessThanOrEqual(20);
    expect(emu.stats.rateLimited).toBe(0);
    expect(s.windows.deferred).toBeGreaterThan(0);
  }, 30_000);
});
