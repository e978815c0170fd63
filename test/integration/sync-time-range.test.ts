import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AssistantTurn, FeedbackItem } from '../../src/emulator/index.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { feedbackRows, feedbackTruth, messageRows, turnRows, turnsTruth } from '../helpers/events-truth.js';
import { byKey, sorted, tables, truth } from '../helpers/streams-truth.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';

/** The service's "now": the windows below ended weeks before it, whatever day the suite runs. */
const TODAY = '2026-03-04';
const emulator = emulatorsPerTest({ seed: 13, days: 40, paths: 40, today: TODAY });
const MONTH = { from: '2026-02-01', to: '2026-03-01' };
const WEEK = { from: '2026-02-16', to: '2026-02-23' };
const YEAR_MINUS_1 = '-000001-01-01T00:00:00Z';
const DATE_MAX = '+275760-09-13T00:00:00Z';

function options(
  emu: Awaited<ReturnType<typeof emulator>>,
  db: string,
  streams: string,
  over: Partial<SyncOptions> = {},
): SyncOptions {
  return emulatorSyncOptions(emu, db, {
    streams: parseStreams(streams),
    now: () => Date.parse(`${TODAY}T12:00:00Z`),
    ...over,
  });
}

/** `export` of the database as a process: what failed with "Invalid time value" on every run. */
async function exportExit(db: string): Promise<{ code: number | null; stderr: string }> {
  const out = join(mkdtempSync(join(tmpdir(), 'mintlify-etl-export-')), 'out');
  const r = await runCli(['export', '--out', out, '--db', db]);
  return { code: r.code, stderr: r.stderr };
}

describe('a time outside [2000-01-01, 2200-01-01) from the API', () => {
  it('leaves its feedback row out with a time_out_of_range warning; the month loads and exports', async () => {
    const probe = await emulator();
    const items = probe.dataset.feedbackEvents(MONTH.from, MONTH.to);
    const early = (items[1] as FeedbackItem).id;
    const late = (items[4] as FeedbackItem).id;
    const at: Record<string, string> = { [early]: YEAR_MINUS_1, [late]: DATE_MAX };
    const emu = await emulator({
      servedEdits: { feedback: (f) => (at[f.id] ? { ...f, createdAt: at[f.id] as string } : f) },
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'feedback', MONTH));
    expect(s.exitCode).toBe(0);
    expect(s.warnings.byKind['time_out_of_range']).toBe(1);
    expect(await feedbackRows(db)).toEqual(
      feedbackTruth(emu.dataset, emu.projectId, MONTH.from, MONTH.to).filter(
        (r) => r['id'] !== early && r['id'] !== late,
      ),
    );
    expect(await exportExit(db)).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('leaves its assistant turn out, and a later run with assistant_threads exits 0', async () => {
    const probe = await emulator();
    const bad = probe.dataset.assistantTurns(WEEK.from, WEEK.to)[2] as AssistantTurn;
    const isBad = (t: AssistantTurn): boolean => t.id === bad.id && t.timestamp === bad.timestamp;
    const emu = await emulator({
      servedEdits: { assistant: (t) => (isBad(t) ? { ...t, timestamp: YEAR_MINUS_1 } : t) },
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'assistant', WEEK));
    expect(s.exitCode).toBe(0);
    expect(s.warnings.byKind['time_out_of_range']).toBe(1);
    const kept = (r: Record<string, unknown>): boolean =>
      !(r['thread_id'] === bad.id && r['ts_ms'] === Date.parse(bad.timestamp));
    expect(await turnRows(db)).toEqual(
      turnsTruth(emu.dataset, emu.projectId, WEEK.from, WEEK.to).filter(kept),
    );
    const threads = await runSync(options(emu, db, 'assistant_threads', { maxThreads: 3 }));
    expect(threads.failures).toEqual([]);
    expect(threads.exitCode).toBe(0);
    expect(await exportExit(db)).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('stores a search term’s lastSearchedAt as NULL with the warning; the term and the day load', async () => {
    const day = '2026-02-20';
    const probe = await emulator();
    const term = probe.dataset.searches(day).searches[0]?.searchQuery ?? '';
    const emu = await emulator({
      servedEdits: { searches: (r) => (r.searchQuery === term ? { ...r, lastSearchedAt: DATE_MAX } : r) },
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'searches', { from: day, to: '2026-02-21' }));
    expect(s.exitCode).toBe(0);
    expect(s.warnings.byKind['time_out_of_range']).toBe(1);
    const stored = sorted(await tables(db));
    const all = truth(emu.dataset, emu.projectId, [day]);
    expect(stored.searchTotals).toEqual(all.searchTotals);
    expect(stored.terms).toEqual(
      all.terms.map((r) => (r.query === term ? { ...r, last_searched_at: null } : r)),
    );
    expect(await exportExit(db)).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('leaves a thread message out and stores the thread’s createdAt as NULL, with the warning', async () => {
    const probe = await emulator();
    const threadId = (probe.dataset.assistantTurns(WEEK.from, WEEK.to)[0] as AssistantTurn).id;
    const body = probe.dataset.assistantThread(threadId);
    const dropped = body?.messages[1]?.id;
    const emu = await emulator({
      servedEdits: {
        thread: (b) =>
          b.threadId === threadId
            ? {
                ...b,
                createdAt: DATE_MAX,
                messages: b.messages.map((m) => (m.id === dropped ? { ...m, createdAt: YEAR_MINUS_1 } : m)),
              }
            : b,
      },
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'assistant,assistant_threads', { ...WEEK, maxThreads: 1000 }));
    expect(s.exitCode).toBe(0);
    // One warning per field: the message's time, and the thread's own.
    expect(s.warnings.byKind['time_out_of_range']).toBe(2);
    const mine = (await messageRows(db)).filter((r) => r['thread_id'] === threadId);
    expect(mine).toEqual(
      (body?.messages ?? [])
        .map((m, seq) => ({
          project_id: emu.projectId,
          thread_id: threadId,
          message_id: m.id,
          seq,
          role: m.role,
          content: m.content,
          created_ms: Date.parse(m.createdAt),
        }))
        .filter((m) => m.message_id !== dropped)
        .sort(byKey('thread_id', 'message_id')),
    );
    expect(
      await readRows(db, `SELECT status, created_at FROM assistant_threads WHERE thread_id = '${threadId}'`),
    ).toEqual([{ status: 'loaded', created_at: null }]);
    expect(await exportExit(db)).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});
