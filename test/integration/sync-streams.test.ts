import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, dayRange } from '../../src/util/day.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { clockFrom, emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';
import { byKey, minimum, sorted, tables, truth } from '../helpers/streams-truth.js';

/** A fixed today (the 1st of a month, a Monday); the clock ticks from it. */
const today = '2027-03-01';
const now = clockFrom(`${today}T08:00:00Z`);
const emulator = emulatorsPerTest({ seed: 11, days: 30, paths: 600, today });

const DAY_STREAMS = 'visitors,views,searches,caller_stats';

function options(emu: Emulator, dbPath: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return emulatorSyncOptions(emu, dbPath, { streams: parseStreams(DAY_STREAMS), now, ...over });
}

const days = dayRange(addDays(today, -30), today);

describe('the day streams', () => {
  it('load 60 days of every default stream equal to the ground truth, at the minimum of requests', async () => {
    const emu = await emulator({ days: 60 });
    const db = tempDbPath();
    const sixty = dayRange(addDays(today, -60), today);
    const s = await runSync(options(emu, db, { from: sixty[0] }));
    expect(s.status).toBe('succeeded');
    expect(s.windows).toMatchObject({ planned: 4 * sixty.length, loaded: 4 * sixty.length, failed: 0 });
    expect(sorted(await tables(db))).toEqual(truth(emu.dataset, emu.projectId, sixty));
    expect(s.requests).toBe(minimum(emu.dataset, sixty));
    expect(emu.stats.requests).toBe(s.requests);
  });

  it('load 60 days equal to the ground truth through faults 0.3 (resets, 5xx, HTML 502s, slow answers)', async () => {
    // 429s pause the whole budget for their Retry-After; they are in the next test. Slow answers
    // take 20 ms: what they test is an answer that comes late, not how late.
    const emu = await emulator({
      days: 60,
      faults: 0.3,
      faultKinds: ['server-error', 'bad-gateway', 'unavailable', 'connection-reset', 'slow'],
      slowMs: 20,
    });
    const db = tempDbPath();
    const sixty = dayRange(addDays(today, -60), today);
    const s = await runSync(options(emu, db, { from: sixty[0] }));
    expect(s.status).toBe('succeeded');
    expect(emu.stats.faults).toBeGreaterThan(50);
    expect(s.requests - minimum(emu.dataset, sixty)).toBe(emu.stats.faults);
    expect(sorted(await tables(db))).toEqual(truth(emu.dataset, emu.projectId, sixty));
  }, 60_000);

  it('load the same truth through faults 0.3 (resets, 5xx, 429s), and a re-run changes nothing', async () => {
    // Eight days: every 429 pauses the whole budget for its Retry-After, which is the cost; the
    // emulator asks for a fifth of a second (the client still waits what it is told).
    const emu = await emulator({ faults: 0.3, retryAfterSeconds: 0.2, slowMs: 20 });
    const db = tempDbPath();
    const week = days.slice(-8);
    const s = await runSync(options(emu, db, { from: week[0] }));
    expect(s.status).toBe('succeeded');
    expect(s.retries).toBeGreaterThan(0);
    const first = sorted(await tables(db));
    expect(first).toEqual(truth(emu.dataset, emu.projectId, week));
    const again = await runSync(options(emu, db, { from: week[0], refresh: true }));
    expect(again.status).toBe('succeeded');
    expect(sorted(await tables(db))).toEqual(first);
  }, 120_000);

  it('records a searches day cut by --max-pages as truncated, in sync_windows and search_totals_daily', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const big = emu.dataset.streamEdgeDays.searches101;
    const s = await runSync(
      options(emu, db, {
        streams: parseStreams('searches'),
        from: big,
        to: addDays(big, 1),
        maxPages: new Map([['searches', 1]]),
      }),
    );
    expect(s.status).toBe('succeeded');
    expect(await readRows(db, 'SELECT stream, truncated, rows FROM sync_windows')).toEqual([
      { stream: 'searches', truncated: true, rows: 100 },
    ]);
    expect(await readRows(db, 'SELECT terms::INT AS terms, truncated FROM search_totals_daily')).toEqual([
      { terms: 100, truncated: true },
    ]);
  });

  it('load feedback by page (opt-in) with a day of more than 100 pages recorded truncated', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { streams: parseStreams('feedback_by_page'), from: days[0] }));
    expect(s.status).toBe('succeeded');
    expect(s.requests).toBe(days.length);
    const want = days.flatMap((day) =>
      emu.dataset.feedbackByPage(day).feedback.map((r) => ({
        day,
        path: r.path,
        thumbs_up: r.thumbsUp,
        thumbs_down: r.thumbsDown,
        code: r.code,
        total: r.total,
      })),
    );
    const got = await readRows(
      db,
      `SELECT day, path, thumbs_up::INT AS thumbs_up, thumbs_down::INT AS thumbs_down, code::INT AS code,
              total::INT AS total FROM feedback_page_daily`,
    );
    expect([...(got as Record<string, unknown>[])].sort(byKey('day', 'path'))).toEqual(
      [...want].sort(byKey('day', 'path')),
    );
    const big = emu.dataset.streamEdgeDays.feedbackOver100;
    expect(await readRows(db, 'SELECT window_start AS day FROM sync_windows WHERE truncated')).toEqual([
      { day: big },
    ]);
  });
});

describe('one budget, spent newest day first across streams', () => {
  it('ends a first run of a ~1,000-page site under --max-requests 100 with the last 7 days complete in every default stream', async () => {
    const emu = await emulator({ paths: 1_000 });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { maxRequests: 100 }));
    expect(s.requests).toBeLessThanOrEqual(100);
    expect(s.stopReason).toBe('max-requests');
    const week = dayRange(addDays(today, -7), today);
    for (const stream of ['visitors', 'views', 'searches', 'caller_stats']) {
      const loaded = await readRows<{ day: string }>(
        db,
        `SELECT window_start AS day FROM sync_windows
         WHERE stream = '${stream}' AND status = 'loaded' AND NOT truncated ORDER BY day`,
      );
      expect(
        loaded.map((r) => r.day),
        stream,
      ).toEqual(expect.arrayContaining(week));
    }
    // Every request went to a window that loaded: nothing thrown away at the cut.
    expect(s.windows.failed).toBe(0);
  });

  it('never meets a 429 from a server limited to 40 requests per 4 s across all streams', async () => {
    const emu = await emulator({ rateLimit: '40/4s' });
    const db = tempDbPath();
    // Ten days of four streams: about 75 requests, so the budget must hold the run back at least once.
    const tenDays = days.slice(-10);
    const s = await runSync(options(emu, db, { from: tenDays[0], rateLimit: parseRateLimit('40/4s') }));
    expect(s.status).toBe('succeeded');
    expect(s.requests).toBeGreaterThan(40);
    expect(emu.stats.rateLimited).toBe(0);
    expect(s.windows.loaded).toBe(4 * tenDays.length);
  }, 60_000);
});
