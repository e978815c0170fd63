import { describe, expect, it } from 'vitest';
import { remainingEta } from '../../src/pipeline/eta.js';
import { RunBudget } from '../../src/pipeline/limits.js';
import { parseRateLimit } from '../../src/util/duration.js';

/** A clock that only moves when the budget sleeps. */
function fakeTime(start = 1_000_000): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let t = start;
  return {
    now: () => t,
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

describe('the progress ETA', () => {
  it('under 60/15s with 460 requests to send tracks the time the budget actually takes, at every request', async () => {
    const time = fakeTime();
    const budget = new RunBudget(parseRateLimit('60/15s'), {}, time);
    const start = time.now();
    const etas: { at: number; eta: number }[] = [];
    for (let left = 460; left > 0; left--) {
      etas.push({ at: time.now(), eta: remainingEta(left, budget, time.now(), 0) });
      budget.complete(await budget.acquire());
    }
    const end = time.now();
    // Seven refills of 60 after the first 60: the last request goes at 105 s.
    expect(end - start).toBe(105_000);
    for (const { at, eta } of etas) expect(Math.abs(eta - (end - at))).toBeLessThanOrEqual(15_000);
    expect(etas[0]?.eta).toBe(105_000);
  });

  it('counts what an earlier run left in the window, and is 0 when nothing is left to send', () => {
    const time = fakeTime();
    const spent = Array.from({ length: 60 }, (_, i) => time.now() - 1_000 + i);
    const budget = new RunBudget(parseRateLimit('60/15s'), {}, { spent, ...time });
    expect(remainingEta(30, budget, time.now(), 100)).toBe(15_000 + 30 * 100);
    expect(remainingEta(30, budget, time.now() + 15_000, 100)).toBe(30 * 100);
    expect(remainingEta(0, budget, time.now(), 100)).toBe(0);
  });
});
