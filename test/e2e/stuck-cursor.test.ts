import { afterEach, describe, expect, it } from 'vitest';
import type { CursorFault } from '../../src/emulator/cursor-faults.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';

interface Summary {
  exitCode: number;
  requests: number;
  windows: { planned: number; loaded: number; failed: number; deferred: number };
  failures: { stream: string; code: string; message: string }[];
}

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.close()));
});

const today = todayUtc();

/** A sync of `streams` over the last `days` days against an emulator whose `fault` never ends its cursor. */
async function syncAgainst(fault: CursorFault, streams: string, days: number) {
  const emu = await startEmulator({ seed: 5, days: 120, paths: 50, cursorFault: fault });
  started.push(emu);
  const db = tempDbPath();
  // The bound only keeps a run of the old pager (10,000 pages a window) short; it is never reached.
  const r = await runCli(
    ['sync', '--db', db, '--from', addDays(today, -days), '--to', addDays(today, -1)].concat([
      '--streams',
      streams,
      '--concurrency',
      '1',
      '--max-requests',
      '60',
      '--json',
    ]),
    { MINTLIFY_API_URL: emu.url, MINTLIFY_API_KEY: emu.apiKey, MINTLIFY_PROJECT_ID: emu.projectId },
  );
  return { r, s: JSON.parse(r.stdout) as Summary, emu };
}

describe('a cursor that never advances', () => {
  const cases: [CursorFault['endpoint'], CursorFault['kind'], number, number][] = [
    // [endpoint, fault, days in the range, most requests one stuck window costs: a repeated cursor
    // is seen on the second page; two empty pages on the third, or the second when the day's
    // totalSearches leave room for one page only]
    ['searches', 'repeat', 6, 2],
    ['searches', 'empty', 6, 3],
    ['feedback', 'repeat', 70, 2],
    ['feedback', 'empty', 70, 3],
    ['assistant', 'repeat', 30, 2],
    ['assistant', 'empty', 30, 3],
  ];
  it.each(cases)(
    'on %s (%s) fails two windows after a few requests each, defers the rest of the stream and exits 4',
    async (endpoint, kind, days, perWindow) => {
      const { r, s, emu } = await syncAgainst({ endpoint, kind }, endpoint, days);
      expect(r.code).toBe(4);
      expect(s.windows.failed).toBe(2);
      expect(s.windows.deferred).toBe(s.windows.planned - 2);
      expect(s.requests).toBeGreaterThanOrEqual(2 * 2);
      expect(s.requests).toBeLessThanOrEqual(2 * perWindow);
      expect(emu.stats.requests).toBe(s.requests);
      expect(s.failures.map((f) => f.code)).toEqual(['E_STUCK_CURSOR', 'E_STUCK_CURSOR']);
      const lines = r.stderr.split('\n').filter((l) => l.includes('the cursor does not advance'));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(`${endpoint} .*${kind === 'repeat' ? 'sent back cursor' : '(brought no new row|allows)'}`),
      );
      expect(r.stderr).toContain(`${endpoint}: the cursor did not advance on 2 windows in a row`);
    },
    30_000,
  );

  it('leaves the other streams their budget: every visitors day loads beside a stuck searches stream', async () => {
    const { r, s } = await syncAgainst({ endpoint: 'searches', kind: 'empty' }, 'visitors,searches', 10);
    expect(r.code).toBe(4);
    // 9 visitors days of one page each, and two searches days of at most three pages before the stream stops.
    expect(s.windows).toMatchObject({ planned: 18, loaded: 9, failed: 2, deferred: 7 });
    expect(s.requests).toBeLessThanOrEqual(9 + 2 * 3);
  }, 30_000);
});
