import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { gatherReport } from '../../src/report/data.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays } from '../../src/util/day.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';
import {
  feedbackRows,
  feedbackTruth,
  messageRows,
  messagesTruth,
  rangeRequests,
  turnRows,
  turnsTruth,
} from '../helpers/events-truth.js';

/** A fixed today, the last day of a month and of a year, so the month before ends 31 days ago. */
const today = '2026-12-31';
const NOW = Date.parse(`${today}T06:00:00Z`);
const emulator = emulatorsPerTest({ seed: 5, days: 60, paths: 120, today });

function options(emu: Emulator, dbPath: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return emulatorSyncOptions(emu, dbPath, {
    streams: parseStreams('feedback,assistant'),
    now: () => NOW,
    ...over,
  });
}

const from = addDays(today, -60);

interface WindowRow {
  stream: string;
  window_start: string;
  window_end: string;
  pages: number;
}

async function windows(db: string, stream: string): Promise<WindowRow[]> {
  return readRows<WindowRow>(
    db,
    `SELECT stream, strftime(window_start, '%Y-%m-%d') AS window_start, strftime(window_end, '%Y-%m-%d') AS window_end, pages
     FROM sync_windows WHERE stream = '${stream}' AND status = 'loaded' ORDER BY window_start`,
  );
}

/** The requests a clean fetch of the loaded windows costs: ceil(rows/limit) each, never one a day. */
function cleanCost(emu: Emulator, feedback: readonly WindowRow[], assistant: readonly WindowRow[]): number {
  const ds = emu.dataset;
  return (
    feedback.reduce(
      (n, w) => n + rangeRequests(ds.feedbackEvents(w.window_start, w.window_end).length, 100),
      0,
    ) +
    assistant.reduce(
      (n, w) => n + rangeRequests(ds.assistantTurns(w.window_start, w.window_end).length, 1000),
      0,
    )
  );
}

describe('the event streams', () => {
  it('load 60 days of feedback and assistant turns equal to the truth, at ceil(rows/limit) requests a range window', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from }));
    expect(s.status).toBe('succeeded');
    const fw = await windows(db, 'feedback');
    const aw = await windows(db, 'assistant');
    // Calendar months and ISO weeks: a handful of windows for 60 days, each a range of days.
    expect(fw.length).toBeLessThanOrEqual(4);
    expect(aw.length).toBeLessThanOrEqual(10);
    expect(fw.at(-1)?.window_end).toBe(today);
    expect(aw.at(-1)?.window_end).toBe(today);
    const start = fw[0]?.window_start ?? from;
    expect(await feedbackRows(db)).toEqual(feedbackTruth(emu.dataset, emu.projectId, start, today));
    expect(await turnRows(db)).toEqual(
      turnsTruth(emu.dataset, emu.projectId, aw[0]?.window_start ?? from, today),
    );
    expect(s.requests).toBe(cleanCost(emu, fw, aw));
    expect(emu.stats.requests).toBe(s.requests);
  });

  it('load the same truth through faults 0.3, every extra request a retry of an injected fault', async () => {
    const emu = await emulator({
      faults: 0.3,
      faultKinds: ['server-error', 'bad-gateway', 'unavailable', 'connection-reset', 'slow'],
      // A slow answer is a fault like the others here, not a test of the timeout's length.
      slowMs: 20,
      retryAfterSeconds: 0.2,
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from }));
    expect(s.status).toBe('succeeded');
    const fw = await windows(db, 'feedback');
    const aw = await windows(db, 'assistant');
    expect(emu.stats.faults).toBeGreaterThan(0);
    expect(s.requests - cleanCost(emu, fw, aw)).toBe(emu.stats.faults);
    expect(await feedbackRows(db)).toEqual(
      feedbackTruth(emu.dataset, emu.projectId, fw[0]?.window_start ?? from, today),
    );
    expect(await turnRows(db)).toEqual(
      turnsTruth(emu.dataset, emu.projectId, aw[0]?.window_start ?? from, today),
    );
  }, 60_000);

  it('makes feedback equal the new truth after triage changed statuses on the server, keeping first_seen_at', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    await runSync(options(emu, db, { from, streams: parseStreams('feedback') }));
    const before = await readRows<{ id: string; first: number; last: number }>(
      db,
      'SELECT id, epoch_ms(first_seen_at)::DOUBLE AS first, epoch_ms(last_seen_at)::DOUBLE AS last FROM feedback',
    );
    const changed = emu.triageFeedback({ dateFrom: addDays(today, -20), dateTo: today, count: 15 });
    expect(changed).toHaveLength(15);
    // The next run, an hour later: it sees the triage and stamps what it saw with its own time.
    const s = await runSync(
      options(emu, db, { streams: parseStreams('feedback'), now: () => NOW + 3_600_000 }),
    );
    expect(s.status).toBe('succeeded');
    const fw = await windows(db, 'feedback');
    expect(await feedbackRows(db)).toEqual(
      feedbackTruth(emu.dataset, emu.projectId, fw[0]?.window_start ?? from, today),
    );
    const after = await readRows<{ id: string; first: number; last: number; status: string }>(
      db,
      'SELECT id, status, epoch_ms(first_seen_at)::DOUBLE AS first, epoch_ms(last_seen_at)::DOUBLE AS last FROM feedback',
    );
    const was = new Map(before.map((r) => [r.id, r]));
    for (const id of changed) {
      const a = after.find((r) => r.id === id);
      expect(a?.status).toBe('resolved');
      expect(a?.first).toBe(was.get(id)?.first);
      expect(a?.last).toBeGreaterThan(was.get(id)?.last ?? Infinity);
    }
  });

  it('leave a report that says what is loaded and what it needs when visitors are not synced', async () => {
    const emu = await emulator({ days: 10 });
    const db = tempDbPath();
    await runSync(options(emu, db, { streams: parseStreams('feedback') }));
    const file = await openDatabase(db, { readOnly: true });
    try {
      const data = await gatherReport(duckSession(file.connection), { days: 28 });
      expect(data.withoutVisitors).toEqual(['feedback']);
      expect(renderTerminal(data, { color: false })).toMatch(
        /^No visitors days loaded yet \(the report is built around them; loaded: feedback\): sync with visitors in --streams/,
      );
    } finally {
      file.close();
    }
  });

  it('is idempotent: the same range loaded again leaves the same rows', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    await runSync(options(emu, db, { from }));
    const first = { f: await feedbackRows(db), t: await turnRows(db) };
    const again = await runSync(options(emu, db, { from, refresh: true }));
    expect(again.status).toBe('succeeded');
    expect({ f: await feedbackRows(db), t: await turnRows(db) }).toEqual(first);
  });
});

describe('assistant threads (opt-in)', () => {
  it('fetch each thread once, in the same run as its turns, and again only when it gained turns', async () => {
    const emu = await emulator({ days: 20 });
    const db = tempDbPath();
    const streams = parseStreams('assistant,assistant_threads');
    const s = await runSync(options(emu, db, { from: addDays(today, -14), streams, maxThreads: 10_000 }));
    expect(s.status).toBe('succeeded');
    const ids = (
      await readRows<{ id: string }>(db, 'SELECT DISTINCT thread_id AS id FROM assistant_turns')
    ).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(20);
    const threadRequests = (): number =>
      emu.stats.log.filter((e) => e.path.includes('/assistant/threads/')).length;
    expect(threadRequests()).toBe(ids.length);
    expect(await messageRows(db)).toEqual(messagesTruth(emu.dataset, emu.projectId, ids));

    // Nothing changed: the next run spends nothing on threads.
    await runSync(options(emu, db, { streams, maxThreads: 10_000 }));
    expect(threadRequests()).toBe(ids.length);

    // A thread of yesterday continues: the assistant stream sees its new turn, and the thread is
    // fetched again, alone.
    const yesterday = addDays(today, -1);
    const at = `${yesterday}T23:59:59.000Z`;
    const lastMessage = (id: string): string =>
      emu.dataset.assistantThread(id)?.messages.at(-1)?.createdAt ?? at;
    const grown = emu.dataset
      .assistantThreadIds(yesterday, today)
      .find(
        (id) =>
          lastMessage(id) < at &&
          emu.dataset.assistantThread(id)?.messages[0]?.createdAt.startsWith(yesterday),
      );
    expect(grown).toBeDefined();
    emu.appendAssistantTurn(grown ?? '', at);
    await runSync(options(emu, db, { streams, maxThreads: 10_000 }));
    expect(threadRequests()).toBe(ids.length + 1);
    expect(await messageRows(db)).toEqual(messagesTruth(emu.dataset, emu.projectId, ids));
  });

  it('record a thread the service no longer has as gone, and never take a wrong URL for that', async () => {
    const emu = await emulator({ days: 10 });
    const db = tempDbPath();
    const streams = parseStreams('assistant,assistant_threads');
    await runSync(options(emu, db, { from: addDays(today, -7), streams, maxThreads: 10_000 }));
    const messages = await messageRows(db);
    expect(messages.length).toBeGreaterThan(0);

    // A wrong API URL answers 404 for every thread without naming it: nothing is marked gone.
    const wrong = options(emu, db, {
      streams: parseStreams('assistant_threads'),
      refresh: true,
      maxThreads: 3,
    });
    await expect(runSync({ ...wrong, apiUrl: `${emu.url}/wrong` })).rejects.toThrow(/API URL looks wrong/);
    expect(
      await readRows(db, "SELECT count(*)::INT AS n FROM assistant_threads WHERE status <> 'loaded'"),
    ).toEqual([{ n: 0 }]);
    expect(await messageRows(db)).toEqual(messages);

    // A turn of a thread the service does not know (a ULID it never made): 404 naming the thread.
    const file = await openDatabase(db);
    await file.connection.run(
      `INSERT INTO assistant_turns VALUES ('${emu.projectId}', '01ARZ3NDEKTSV4RRFFQ69G5FAV', now(), 'q', 'r',
         'answer', 'answered', NULL, NULL, [], now(), 'test', current_date)`,
    );
    file.close();
    const s = await runSync(
      options(emu, db, { streams: parseStreams('assistant_threads'), maxThreads: 10_000 }),
    );
    expect(s.status).toBe('succeeded');
    expect(
      await readRows(db, "SELECT thread_id, status FROM assistant_threads WHERE status <> 'loaded'"),
    ).toEqual([{ thread_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'gone' }]);
    const again = await runSync(
      options(emu, db, { streams: parseStreams('assistant_threads'), maxThreads: 10_000 }),
    );
    expect(again.requests).toBe(0);
  });

  it('fetch at most --max-threads per run, newest first, and the rest in later runs', async () => {
    const emu = await emulator({ days: 10 });
    const db = tempDbPath();
    const streams = parseStreams('assistant,assistant_threads');
    const s = await runSync(options(emu, db, { from: addDays(today, -7), streams, maxThreads: 5 }));
    expect(s.status).toBe('succeeded');
    const fetched = await readRows<{ id: string; last: number }>(
      db,
      `SELECT a.thread_id AS id, epoch_ms(max(t.ts))::DOUBLE AS last FROM assistant_threads a
       JOIN assistant_turns t USING (project_id, thread_id) GROUP BY a.thread_id`,
    );
    expect(fetched).toHaveLength(5);
    const newest = await readRows<{ last: number }>(
      db,
      'SELECT epoch_ms(max(ts))::DOUBLE AS last FROM assistant_turns GROUP BY thread_id ORDER BY last DESC LIMIT 5',
    );
    expect(fetched.map((r) => r.last).sort()).toEqual(newest.map((r) => r.last).sort());
  });
});
