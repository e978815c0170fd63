import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO_WEEKS, MONTHS } from '../../src/extract/range-plan.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { STREAMS } from '../../src/streams/index.js';
import { addDays, dayToMs, todayUtc, type Day } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { feedbackRows, feedbackTruth, turnRows, turnsTruth } from '../helpers/events-truth.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 7, days: 100, paths: 160 });
});
afterAll(async () => {
  await emu.close();
});

const env = (): Record<string, string> => ({
  MINTLIFY_API_URL: emu.url,
  MINTLIFY_API_KEY: emu.apiKey,
  MINTLIFY_PROJECT_ID: emu.projectId,
});

const today = todayUtc();
const isCellStart = (d: Day): boolean => MONTHS.start(d) === d || ISO_WEEKS.start(d) === d;

/**
 * A three-day range about three weeks back whose --to starts neither a month nor a week, so that
 * it ends inside a loaded month and a loaded week whatever day the suite runs on.
 */
function narrowRange(): { from: Day; to: Day } {
  let to = addDays(today, -20);
  while (isCellStart(to)) to = addDays(to, -1);
  return { from: addDays(to, -3), to };
}

interface DrySummary {
  plan: { days: { stream: string; day: Day; dateTo: Day }[] };
}

describe('sync --streams feedback,assistant with a range narrower than the loaded cells', () => {
  it('re-reads the months and weeks it touches whole and leaves every loaded row equal to the truth', async () => {
    const db = tempDbPath();
    const streams = ['--streams', 'feedback,assistant'];
    const first = await runCli(['sync', '--db', db, ...streams, '--from', addDays(today, -45)], env());
    expect(first.code).toBe(0);
    const feedbackFrom = MONTHS.start(addDays(today, -45));
    const turnsFrom = ISO_WEEKS.start(addDays(today, -45));
    const truth = {
      feedback: feedbackTruth(emu.dataset, emu.projectId, feedbackFrom, today),
      turns: turnsTruth(emu.dataset, emu.projectId, turnsFrom, today),
    };

    const { from, to } = narrowRange();
    const narrow = ['sync', '--db', db, ...streams, '--refresh', '--from', from, '--to', to];
    const dry = await runCli([...narrow, '--dry-run', '--json'], env());
    expect(dry.code).toBe(0);
    // Each planned window is a whole cell, or the running one up to today: the last goes past --to.
    const planned = (JSON.parse(dry.stdout) as DrySummary).plan.days;
    for (const w of planned) {
      const grid = w.stream === 'feedback' ? MONTHS : ISO_WEEKS;
      expect([w.day, w.dateTo]).toEqual([grid.start(w.day), [grid.next(w.day), today].sort()[0]]);
    }
    for (const stream of ['feedback', 'assistant']) {
      const ends = planned.filter((w) => w.stream === stream).map((w) => dayToMs(w.dateTo));
      expect(Math.max(...ends)).toBeGreaterThan(dayToMs(to));
    }
    const again = await runCli(narrow, env());
    expect(again.code).toBe(0);
    expect({ feedback: await feedbackRows(db), turns: await turnRows(db) }).toEqual(truth);
  });
});

describe('sync of an explicit range over settled, loaded data, run twice', () => {
  async function twice(
    args: readonly string[],
  ): Promise<{ requests: number; server: number; ledger: number }> {
    const db = tempDbPath();
    const run = ['sync', '--db', db, '--rate-limit', '100000/1h', '--json', ...args];
    const first = await runCli(run, env());
    expect(first.code).toBe(0);
    expect((JSON.parse(first.stdout) as { requests: number }).requests).toBeGreaterThan(0);
    const before = emu.stats.requests;
    const second = await runCli(run, env());
    expect(second.code).toBe(0);
    const s = JSON.parse(second.stdout) as { requests: number; runId: string };
    const rows = await readRows<{ n: number }>(
      db,
      `SELECT count(*)::INT AS n FROM api_requests WHERE run_id = '${s.runId}'`,
    );
    return { requests: s.requests, server: emu.stats.requests - before, ledger: rows[0]?.n ?? -1 };
  }

  it('spends no request the second time, whatever the stream kind', async () => {
    // Two months back: its feedback month ended more than 30 days ago, so every window is settled.
    const from = addDays(today, -65);
    const args = ['--streams', STREAMS.map((x) => x.name).join(','), '--max-threads', '1000'];
    expect(await twice([...args, '--from', from, '--to', addDays(from, 3)])).toEqual({
      requests: 0,
      server: 0,
      ledger: 0,
    });
  });

  it('spends no request the second time on a feedback_by_page day of more than 100 pages', async () => {
    const big = emu.dataset.streamEdgeDays.feedbackOver100;
    const args = ['--streams', 'feedback_by_page', '--from', big, '--to', addDays(big, 1)];
    expect(await twice(args)).toEqual({ requests: 0, server: 0, ledger: 0 });
  });
});
