import { describe, expect, it } from 'vitest';
import type { ProgressSink, ProgressState } from '../../src/pipeline/progress.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { tempDbPath } from '../helpers/db.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';

const emulator = emulatorsPerTest({ seed: 5, days: 60, paths: 120 });

/** Every state the run showed its display, copied as it was then. */
function recorder(): { sink: ProgressSink; states: ProgressState[] } {
  const states: ProgressState[] = [];
  const keep = (s: ProgressState): void => void states.push({ ...s });
  return { sink: { start: keep, update: keep, stop: () => {} }, states };
}

describe("the run's progress", () => {
  it('counts the threads in the total from the start, and carries an ETA once requests are answered', async () => {
    const emu = await emulator();
    const { sink, states } = recorder();
    const streams = parseStreams('assistant,assistant_threads');
    const s = await runSync(
      emulatorSyncOptions(emu, tempDbPath(), {
        streams,
        from: addDays(todayUtc(), -14),
        maxThreads: 3,
        progress: sink,
      }),
    );
    expect(s.windows.loaded).toBe(s.windows.planned);
    const first = states[0];
    const last = states.at(-1);
    // The weeks, and the three threads the assistant turns will ask for.
    expect(first?.windowsTotal).toBe(s.windows.planned);
    expect(last).toMatchObject({ windowsDone: s.windows.planned, windowsTotal: s.windows.planned });
    // The bar's last word agrees with the summary: rows counted as their loads commit, requests too.
    expect(last).toMatchObject({ rows: s.rows, requests: s.requests });
    expect(states.every((p) => p.windowsTotal === s.windows.planned)).toBe(true);
    expect(states.filter((p) => p.requests > 0).some((p) => p.etaMs !== undefined)).toBe(true);
  }, 30_000);
});
