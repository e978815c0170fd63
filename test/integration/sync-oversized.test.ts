import { duckDestination } from '../../src/load/duckdb/place.js';
import { describe, expect, it } from 'vitest';
import type { AssistantTurn, FeedbackItem, ServedEdits } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { gatherStatus } from '../../src/pipeline/status.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { parseStreams } from '../../src/streams/index.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';
import { feedbackRows, feedbackTruth, messageRows, turnRows, turnsTruth } from '../helpers/events-truth.js';
import { byKey } from '../helpers/streams-truth.js';

/** The service's "now": every window below ended weeks before it, whatever day the suite runs. */
const TODAY = '2026-03-04';
const emulator = emulatorsPerTest({ seed: 11, days: 40, paths: 40, today: TODAY });

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

/** One calendar month of feedback; one ISO week (Monday 2026-02-16) of assistant turns. */
const MONTH = { from: '2026-02-01', to: '2026-03-01' };
const WEEK = { from: '2026-02-16', to: '2026-02-23' };

describe('a value far larger than any the dataset holds', () => {
  it('a 5 MB feedback comment loads with its month, equal to the truth', async () => {
    const probe = await emulator();
    const target = probe.dataset.feedbackEvents(MONTH.from, MONTH.to)[3] as FeedbackItem;
    const huge = `${'Ω'.repeat(2_500_000)}!`; // 5 MB of UTF-8
    const edit = (f: FeedbackItem): FeedbackItem => (f.id === target.id ? { ...f, comment: huge } : f);
    const emu = await emulator({ servedEdits: { feedback: edit } });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'feedback', MONTH));
    expect(s.failures).toEqual([]);
    expect(s.status).toBe('succeeded');
    const truth = feedbackTruth(emu.dataset, emu.projectId, MONTH.from, MONTH.to).map((r) =>
      r['id'] === target.id ? { ...r, comment: huge } : r,
    );
    expect(await feedbackRows(db)).toEqual(truth);
  }, 120_000);

  it('an assistant turn with 1,000,000 sources loads with its week, equal to the truth', async () => {
    const probe = await emulator();
    const target = probe.dataset.assistantTurns(WEEK.from, WEEK.to)[5] as AssistantTurn;
    const sources = Array.from({ length: 1_000_000 }, (_, i) => ({ title: `s${i % 10}`, url: '/u' }));
    const edits: ServedEdits = {
      assistant: (t) => (t.id === target.id && t.timestamp === target.timestamp ? { ...t, sources } : t),
    };
    const emu = await emulator({ servedEdits: edits });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'assistant', WEEK));
    expect(s.failures).toEqual([]);
    expect(s.status).toBe('succeeded');
    const isTarget = (r: Record<string, unknown>): boolean =>
      r['thread_id'] === target.id && r['ts_ms'] === Date.parse(target.timestamp);
    const rows = await turnRows(db);
    const big = rows.find(isTarget);
    expect((big?.['sources'] as unknown[] | undefined)?.length).toBe(1_000_000);
    expect(big?.['sources']).toEqual(sources);
    expect(rows.filter((r) => !isTarget(r))).toEqual(
      turnsTruth(emu.dataset, emu.projectId, WEEK.from, WEEK.to).filter((r) => !isTarget(r)),
    );
  }, 180_000);

  it('a thread of 100,000 messages loads whole, equal to the transcript the service sent', async () => {
    const probe = await emulator();
    const threadId = (probe.dataset.assistantTurns(WEEK.from, WEEK.to)[0] as AssistantTurn).id;
    const body = probe.dataset.assistantThread(threadId);
    const start = Date.parse(body?.createdAt ?? '');
    const messages = Array.from({ length: 100_000 }, (_, i) => ({
      id: `m${String(i).padStart(6, '0')}`,
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message ${i} ${'x'.repeat(100)}`,
      createdAt: new Date(start + i).toISOString(),
    }));
    const emu = await emulator({
      servedEdits: { thread: (b) => (b.threadId === threadId ? { ...b, messages } : b) },
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, 'assistant,assistant_threads', { ...WEEK, maxThreads: 1000 }));
    expect(s.failures).toEqual([]);
    expect(s.status).toBe('succeeded');
    const rows = (await messageRows(db)).filter((r) => r['thread_id'] === threadId);
    expect(rows).toEqual(
      messages
        .map((m, seq) => ({
          project_id: emu.projectId,
          thread_id: threadId,
          message_id: m.id,
          seq,
          role: m.role,
          content: m.content,
          created_ms: Date.parse(m.createdAt),
        }))
        .sort(byKey('thread_id', 'message_id')),
    );
    expect(
      await readRows(db, `SELECT status, messages FROM assistant_threads WHERE thread_id = '${threadId}'`),
    ).toEqual([{ status: 'loaded', messages: 100_000 }]);
  }, 180_000);

  it('a value that still cannot be loaded fails its window alone, in one line naming the field and size, recorded failed', async () => {
    const probe = await emulator();
    const target = probe.dataset.feedbackEvents(MONTH.from, MONTH.to)[2] as FeedbackItem;
    const huge = 'c'.repeat(20 * 2 ** 20);
    const emu = await emulator({
      servedEdits: { feedback: (f) => (f.id === target.id ? { ...f, comment: huge } : f) },
    });
    const db = tempDbPath();
    const jan = { from: '2026-01-01', to: MONTH.to };
    // A ceiling below what a 20 MB text needs stands for a value beyond any the writer can take.
    const s = await runSync(options(emu, db, 'feedback', { ...jan, writerMaxMemoryBytes: 48 * 2 ** 20 }));
    expect(s.exitCode).toBe(4);
    expect(s.windows).toMatchObject({ loaded: 1, failed: 1 });
    const failure = s.failures[0];
    expect(failure?.code).toBe('E_VALUE_TOO_LARGE');
    expect(failure?.message).not.toContain('\n');
    expect(failure?.message).toContain(`field comment of row ${target.id} (20.0 MB)`);
    expect(
      await readRows(
        db,
        `SELECT strftime(window_start, '%Y-%m-%d') AS s, status, error FROM sync_windows ORDER BY s`,
      ),
    ).toEqual([
      { s: '2026-01-01', status: 'loaded', error: null },
      { s: '2026-02-01', status: 'failed', error: `E_VALUE_TOO_LARGE: ${failure?.message}` },
    ]);
    const conn = await openDatabase(db);
    try {
      const st = await gatherStatus(duckDestination(conn), {
        rateLimit: parseRateLimit('100/1h'),
        now: Date.parse(`${TODAY}T12:00:00Z`),
      });
      const fb = st.projects[0]?.streams.find((x) => x.stream === 'feedback');
      expect(fb?.failedDays).toEqual(['2026-02-01']);
      expect(fb?.deferredDays).toEqual([]);
    } finally {
      conn.close();
    }
    // Without the ceiling the same month loads, equal to the truth.
    const again = await runSync(options(emu, db, 'feedback', jan));
    expect(again.failures).toEqual([]);
    expect(await feedbackRows(db)).toEqual(
      feedbackTruth(emu.dataset, emu.projectId, jan.from, jan.to).map((r) =>
        r['id'] === target.id ? { ...r, comment: huge } : r,
      ),
    );
  }, 180_000);
});
