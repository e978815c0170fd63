import { duckDestination } from '../../src/load/duckdb/place.js';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { openReadable } from '../../src/load/duckdb/readable.js';
import { runSync, type SyncOptions, type SyncSummary } from '../../src/pipeline/sync.js';
import { gatherStatus } from '../../src/pipeline/status.js';
import { parseStreams, STREAMS } from '../../src/streams/index.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { feedbackRows, feedbackTruth, turnRows, turnsTruth } from '../helpers/events-truth.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';

// The service's data runs 2026-01-01 .. 2026-02-16 (today 2026-02-17 partial), whatever day the
// suite runs on: every run below is given its own clock.
const TODAY = '2026-02-17';
const emulator = emulatorsPerTest({ seed: 5, days: 47, paths: 160, today: TODAY });

function at(iso: string): () => number {
  const ms = Date.parse(iso);
  return () => ms;
}

function options(emu: Emulator, db: string, streams: string, over: Partial<SyncOptions>): SyncOptions {
  return emulatorSyncOptions(emu, db, { streams: parseStreams(streams), ...over });
}

interface WindowRow {
  stream: string;
  window_start: string;
  window_end: string;
}

async function ledger(db: string, stream: string): Promise<[string, string][]> {
  const rows = await readRows<WindowRow>(
    db,
    `SELECT stream, strftime(window_start, '%Y-%m-%d') AS window_start, strftime(window_end, '%Y-%m-%d') AS window_end
     FROM sync_windows WHERE stream = '${stream}' AND status = 'loaded' ORDER BY window_start`,
  );
  return rows.map((r) => [r.window_start, r.window_end]);
}

/** Every feedback entry and assistant turn the loaded cells hold equals the service's, none missing. */
async function expectEventsEqualTruth(emu: Emulator, db: string): Promise<void> {
  const ds = emu.dataset;
  expect(await feedbackRows(db)).toEqual(feedbackTruth(ds, emu.projectId, '2026-01-01', TODAY));
  // The ISO week holding 2026-01-01 starts on Monday 2025-12-29, before the service's first day.
  expect(await turnRows(db)).toEqual(turnsTruth(ds, emu.projectId, '2025-12-29', TODAY));
}

describe('an explicit range over loaded feedback months and assistant weeks', () => {
  const morning = at(`${TODAY}T06:00:00Z`);

  it('re-reads every cell it touches whole, so a narrower --refresh --from/--to deletes no loaded row', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const first = await runSync(options(emu, db, 'feedback,assistant', { from: '2026-01-01', now: morning }));
    expect(first.status).toBe('succeeded');
    await expectEventsEqualTruth(emu, db);

    const narrow = { from: '2026-01-10', to: '2026-01-13', refresh: true, now: morning };
    const dry = await runSync(options(emu, db, 'feedback,assistant', { ...narrow, dryRun: true }));
    // January and the two weeks that hold 01-10..01-12, each whole: no narrowed cell is planned.
    expect(dry.plan?.days.map((d) => [d.stream, d.day, d.dateTo])).toEqual([
      ['feedback', '2026-01-01', '2026-02-01'],
      ['assistant', '2026-01-12', '2026-01-19'],
      ['assistant', '2026-01-05', '2026-01-12'],
    ]);
    emu.resetStats();
    const again = await runSync(options(emu, db, 'feedback,assistant', narrow));
    expect(again.status).toBe('succeeded');
    expect(again.requests).toBe(emu.stats.requests);
    // The estimate prices the cells it lists, from what the same cells cost before.
    expect(dry.plan?.estimatedRequests).toBe(again.requests);
    await expectEventsEqualTruth(emu, db);
    expect(await ledger(db, 'feedback')).toEqual([
      ['2026-01-01', '2026-02-01'],
      ['2026-02-01', TODAY],
    ]);
  });

  it('re-reads the whole running month and week when --to falls inside them, without --refresh', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    await runSync(options(emu, db, 'feedback,assistant', { from: '2026-01-01', now: morning }));
    const s = await runSync(
      options(emu, db, 'feedback,assistant', { from: '2026-02-03', to: '2026-02-05', now: morning }),
    );
    expect(s.status).toBe('succeeded');
    await expectEventsEqualTruth(emu, db);
    expect((await ledger(db, 'feedback')).at(-1)).toEqual(['2026-02-01', TODAY]);
    expect((await ledger(db, 'assistant')).filter(([s]) => s >= '2026-02-02')).toEqual([
      ['2026-02-02', '2026-02-09'],
      ['2026-02-09', '2026-02-16'],
      ['2026-02-16', TODAY],
    ]);
    const handle = await openReadable(db);
    try {
      const report = await gatherStatus(duckDestination(handle), {
        rateLimit: parseRateLimit('100/1h'),
        now: morning(),
      });
      const streams = report.projects[0]?.streams ?? [];
      for (const name of ['feedback', 'assistant'])
        expect(streams.find((x) => x.stream === name)?.coverage).toMatchObject({
          lastDay: '2026-02-16',
          daysMissing: 0,
        });
    } finally {
      handle.close();
    }
  });
});

describe('an explicit range over settled, loaded data', () => {
  // Ten months after the range ended: every window of it is settled.
  const later = at('2026-11-24T06:00:00Z');
  const every = STREAMS.map((s) => s.name).join(',');

  async function requestsOfRun(db: string, runId: string | null): Promise<number> {
    const rows = await readRows<{ n: number }>(
      db,
      `SELECT count(*)::INT AS n FROM api_requests WHERE run_id = '${String(runId)}'`,
    );
    return rows[0]?.n ?? -1;
  }

  it('spends no request the second time, for every stream kind, a by-page day past 100 paths included', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const big = emu.dataset.streamEdgeDays.feedbackOver100;
    // A range inside one month and across a week boundary, holding the day of more than 100 pages.
    const range = { from: '2026-01-24', to: '2026-01-29', now: later };
    expect(big >= range.from && big < range.to).toBe(true);
    const run = (): Promise<SyncSummary> => runSync(options(emu, db, every, { ...range, maxThreads: 1_000 }));
    const first = await run();
    expect(first.status).toBe('succeeded');
    // Every kind was paid for once: days, event ranges, periods, threads.
    const kinds = await readRows<{ stream: string }>(
      db,
      `SELECT DISTINCT stream FROM sync_windows WHERE status = 'loaded'
       UNION SELECT 'assistant_threads' FROM assistant_messages ORDER BY stream`,
    );
    expect(kinds.map((k) => k.stream)).toEqual(STREAMS.map((x) => x.name).sort());
    // Still recorded as holding only the first 100 pages: the endpoint cannot page further.
    expect(
      await readRows(
        db,
        `SELECT strftime(window_start, '%Y-%m-%d') AS day FROM sync_windows WHERE stream = 'feedback_by_page' AND truncated`,
      ),
    ).toEqual([{ day: big }]);

    emu.resetStats();
    const second = await run();
    expect(second.status).toBe('succeeded');
    expect({
      summary: second.requests,
      server: emu.stats.requests,
      ledger: await requestsOfRun(db, second.runId),
    }).toEqual({
      summary: 0,
      server: 0,
      ledger: 0,
    });
    const dry = await runSync(options(emu, db, every, { ...range, dryRun: true }));
    expect(dry.plan?.days).toEqual([]);
    expect(dry.plan?.estimatedRequests).toBe(0);
  });
});
