import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/errors.js';
import { RunBudget, roomOf } from '../../src/pipeline/limits.js';
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

describe('the run budget', () => {
  it('never grants more than --max-requests, even to callers that all wait for the rate limit at once', async () => {
    const time = fakeTime();
    // The window is full: every caller has to wait for a slot.
    const spent = Array.from({ length: 10 }, (_, i) => time.now() - 500 + i);
    const budget = new RunBudget(parseRateLimit('10/1s'), { maxRequests: 5 }, { spent, ...time });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => budget.acquire()));
    const granted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(granted).toHaveLength(5);
    expect(budget.granted).toBe(5);
    expect(refused.every((r) => r.reason instanceof RateLimitError)).toBe(true);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toContain('--max-requests 5 reached');
  });

  it('gives back the reservation of a request that was never granted', async () => {
    const time = fakeTime();
    const spent = Array.from({ length: 2 }, () => time.now());
    const budget = new RunBudget(parseRateLimit('2/1h'), { maxRequests: 3 }, { spent, ...time });
    await expect(budget.acquire({ maxWaitMs: 1_000 })).rejects.toThrow('longer than the allowed wait');
    expect(budget.granted).toBe(0);
  });

  it('tells the journal about every grant, with its time, before the caller resumes', async () => {
    const time = fakeTime();
    const seen: number[] = [];
    const budget = new RunBudget(
      parseRateLimit('2/1s'),
      {},
      { ...time, onGrant: (at) => void seen.push(at) },
    );
    const a = await budget.acquire();
    const b = await budget.acquire();
    const c = await budget.acquire();
    expect(seen).toEqual([a, b, c]);
    expect(c - a).toBe(1_000);
  });

  it('says how much room the run has left and which bound leaves the least', async () => {
    const time = fakeTime();
    const spent = Array.from({ length: 6 }, () => time.now() - 100);
    const budget = new RunBudget(parseRateLimit('10/1s'), { maxRequests: 3 }, { spent, ...time });
    expect(roomOf(budget, { maxRequests: 3 }, 0, time.now())).toEqual({
      requests: 3,
      reason: 'max-requests',
    });
    await budget.acquire();
    await budget.acquire();
    expect(roomOf(budget, {}, 0, time.now())).toEqual({ requests: 2, reason: 'max-wait' });
    // The six old requests age out within 950 ms: room for them too, unless the deadline is nearer.
    expect(roomOf(budget, {}, 950, time.now())).toEqual({ requests: 8, reason: 'max-wait' });
    expect(roomOf(budget, { deadline: time.now() + 100 }, 950, time.now())).toEqual({
      requests: 2,
      reason: 'max-duration',
    });
  });
});
