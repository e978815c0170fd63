import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/api/budget.js';
import { RateLimitError } from '../../src/errors.js';
import type { RateLimitSpec } from '../../src/util/duration.js';
import { mulberry32 } from '../../src/emulator/prng.js';

/**
 * A virtual clock: sleeps register timers, and `run()` jumps time to the next timer once every
 * pending promise has settled. Concurrency is real (promises interleave), time is not.
 */
class VirtualClock {
  now = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fire: () => void }[] = [];

  readonly nowFn = () => this.now;

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const timer = { at: this.now + Math.max(0, ms), seq: this.seq++, fire: resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });

  /** Runs `fn` once virtual time reaches `at`. */
  at(at: number, fn: () => void): void {
    void this.sleep(at - this.now).then(fn);
  }

  async run(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.timers.length === 0) return;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.now = Math.max(this.now, next.at);
      next.fire();
    }
  }
}

const spec = (limit: number, windowMs: number): RateLimitSpec => ({
  limit,
  windowMs,
  text: `${limit}/${windowMs}ms`,
});

function budget(s: RateLimitSpec, clock: VirtualClock, spent: number[] = []) {
  return new RequestBudget(s, { spent, now: clock.nowFn, sleep: clock.sleep });
}

/** A small seeded PRNG (the emulator's) so every random scenario can be replayed from its seed. */
const prng = mulberry32;

/** The largest count of points in any half-open window [p, p + windowMs) that holds a granted time. */
function worstWindow(spent: readonly number[], granted: readonly number[], windowMs: number): number {
  const all = [...spent, ...granted].sort((a, b) => a - b);
  const grants = [...granted].sort((a, b) => a - b);
  let worst = 0;
  for (const p of all) {
    if (!grants.some((g) => g >= p && g < p + windowMs)) continue;
    worst = Math.max(worst, all.filter((t) => t >= p && t < p + windowMs).length);
  }
  return worst;
}

describe('RequestBudget', () => {
  it('grants `limit` requests at once, then the next when the oldest ages out of the window', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(3, 1_000), clock);
    const granted: number[] = [];
    for (let i = 0; i < 5; i++) void b.acquire().then((t) => granted.push(t));
    await clock.run();
    expect(granted).toEqual([0, 0, 0, 1_000, 1_000]);
  });

  it('counts the spent ledger of earlier runs, and ignores entries older than the window', async () => {
    const clock = new VirtualClock();
    clock.now = 10_000;
    const b = budget(spec(2, 1_000), clock, [8_000, 9_500, 9_400]);
    expect(b.spentInWindow()).toBe(2);
    expect(b.waitTimeMs()).toBe(400);
    expect(b.freesAt()).toBe(10_400);
    const granted: number[] = [];
    void b.acquire().then((t) => granted.push(t));
    await clock.run();
    expect(granted).toEqual([10_400]);
  });

  it('counts a request from its response, not its grant: the window starts when the answer came', async () => {
    // The server counts a request on arrival, which may be as late as the response: a window
    // measured from the grant could let the next request in before the server's window ends.
    const clock = new VirtualClock();
    const b = budget(spec(1, 1_000), clock);
    const granted = await b.acquire();
    expect(granted).toBe(0);
    b.complete(granted, 500);
    clock.now = 1_200;
    expect(b.waitTimeMs()).toBe(300);
    expect(b.freesAt()).toBe(1_500);
  });

  it('reports a free slot as a wait of 0 and freesAt as now', () => {
    const clock = new VirtualClock();
    clock.now = 5;
    const b = budget(spec(1, 100), clock);
    expect(b.waitTimeMs()).toBe(0);
    expect(b.freesAt()).toBe(5);
    expect(b.spentInWindow()).toBe(0);
  });

  it('serves concurrent acquirers first come, first served, newcomers included', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock);
    const order: string[] = [];
    const take = (name: string) => void b.acquire().then((t) => order.push(`${name}@${t}`));
    take('a');
    take('b');
    take('c');
    clock.at(50, () => take('late'));
    clock.at(150, () => take('later'));
    await clock.run();
    expect(order).toEqual(['a@0', 'b@100', 'c@200', 'late@300', 'later@400']);
  });

  it('serves a lower priority number first, so the oldest day in flight gets the next slot', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock);
    const order: string[] = [];
    const take = (name: string, priority: number) =>
      void b.acquire({ priority }).then((t) => order.push(`${name}@${t}`));
    take('day3-p1', 3);
    take('day1-p1', 1);
    take('day2-p1', 2);
    // Day 1's second page arrives while the others still wait: it goes before them.
    clock.at(50, () => take('day1-p2', 1));
    clock.at(150, () => take('day1-p3', 1));
    await clock.run();
    expect(order).toEqual(['day3-p1@0', 'day1-p1@100', 'day1-p2@200', 'day1-p3@300', 'day2-p1@400']);
  });

  it('counts the requests it could grant within a wait: free slots now plus those freed by then', () => {
    const clock = new VirtualClock();
    clock.now = 10_000;
    const b = budget(spec(5, 1_000), clock, [9_100, 9_200, 9_300, 9_900]);
    expect(b.availableWithin(0)).toBe(1);
    expect(b.availableWithin(250)).toBe(3);
    expect(b.availableWithin(5_000)).toBe(5);
    b.pauseUntil(10_500);
    expect(b.availableWithin(400)).toBe(0);
    expect(b.availableWithin(600)).toBe(4);
  });

  it('throws RateLimitError without recording anything when the wait exceeds maxWaitMs', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(2, 1_000), clock, [-100, -50]);
    const err = await b.acquire({ maxWaitMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).waitMs).toBe(900);
    expect((err as Error).message).toMatch(
      /request budget 2\/1000ms is spent.*900ms.*longer than the allowed wait of 500ms/,
    );
    expect(b.spentInWindow()).toBe(2);
    // A caller that accepts the wait still gets the slot.
    const granted: number[] = [];
    void b.acquire({ maxWaitMs: 900 }).then((t) => granted.push(t));
    await clock.run();
    expect(granted).toEqual([900]);
  });

  it('counts the time spent queued behind others against maxWaitMs', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock);
    const results: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      void b.acquire({ maxWaitMs: 150 }).then(
        (t) => results.push(`${name}@${t}`),
        (e: RateLimitError) => results.push(`${name}:refused ${e.waitMs}`),
      );
    }
    await clock.run();
    expect(results).toEqual(['a@0', 'b@100', 'c:refused 100']);
  });

  it('holds everyone until pauseUntil, and a pause never shrinks', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(10, 1_000), clock);
    b.pauseUntil(700);
    b.pauseUntil(300);
    expect(b.waitTimeMs()).toBe(700);
    const granted: number[] = [];
    void b.acquire().then((t) => granted.push(t));
    void b.acquire().then((t) => granted.push(t));
    await clock.run();
    expect(granted).toEqual([700, 700]);
  });

  it('extends the wait of a sleeping acquirer when a pause arrives meanwhile', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock, [-10]);
    const granted: number[] = [];
    void b.acquire().then((t) => granted.push(t));
    clock.at(50, () => b.pauseUntil(400));
    await clock.run();
    expect(granted).toEqual([400]);
  });

  it('says when the API asked for the pause in the RateLimitError message', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(10, 1_000), clock);
    b.pauseUntil(60_000);
    await expect(b.acquire({ maxWaitMs: 1_000 })).rejects.toThrow(/the API asked us to pause \(429\)/);
  });

  it('pauses for a server limit until the oldest request of the window ages out', () => {
    const clock = new VirtualClock();
    clock.now = 1_000;
    const b = budget(spec(100, 3_600_000), clock, [-5_000_000, 200, 600]);
    b.pauseForServerLimit();
    expect(b.freesAt()).toBe(200 + 3_600_000);
  });

  it('pauses for a server limit by one slot (windowMs / limit) when nothing is recorded, never 0', () => {
    const clock = new VirtualClock();
    clock.now = 1_000;
    const b = budget(spec(100, 3_600_000), clock);
    b.pauseForServerLimit();
    expect(b.waitTimeMs()).toBe(36_000);
    const tiny = budget(spec(1_000, 10), clock);
    tiny.pauseForServerLimit();
    expect(tiny.waitTimeMs()).toBe(1);
  });

  it('lets an aborted waiter leave the queue without taking a slot', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock, [0]);
    const ac = new AbortController();
    const results: string[] = [];
    void b.acquire({ signal: ac.signal }).then(
      (t) => results.push(`a@${t}`),
      (e: Error) => results.push(`a:${e.message}`),
    );
    void b.acquire().then((t) => results.push(`b@${t}`));
    clock.at(30, () => ac.abort(new Error('cancelled')));
    await clock.run();
    expect(results).toEqual(['a:cancelled', 'b@100']);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(1, 100), clock);
    await expect(b.acquire({ signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(b.spentInWindow()).toBe(0);
  });

  it('refuses a limit below 1 or an empty window', () => {
    expect(() => new RequestBudget(spec(0, 1_000))).toThrow(RangeError);
    expect(() => new RequestBudget(spec(1, 0))).toThrow(RangeError);
  });

  it('never grants more than `limit` in any window: 250 random scenarios with concurrent acquirers', async () => {
    for (let seed = 1; seed <= 250; seed++) {
      const rnd = prng(seed);
      const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
      const limit = int(1, 8);
      const windowMs = int(5, 2_000);
      const clock = new VirtualClock();
      // The ledger may even hold more than `limit` (an earlier run with another --rate-limit).
      const spent = Array.from({ length: int(0, 2 * limit) }, () => -int(0, 2 * windowMs));
      const b = budget(spec(limit, windowMs), clock, spent);

      const callers = int(1, 40);
      const granted: number[] = [];
      const callOrder: number[] = [];
      const grantOrder: number[] = [];
      let settled = 0;
      for (let i = 0; i < callers; i++) {
        const maxWaitMs = rnd() < 0.2 ? int(0, windowMs) : undefined;
        clock.at(rnd() < 0.3 ? 0 : int(0, 3 * windowMs), () => {
          callOrder.push(i);
          b.acquire(maxWaitMs === undefined ? {} : { maxWaitMs }).then(
            (t) => {
              expect(t).toBe(clock.now);
              granted.push(t);
              grantOrder.push(i);
              settled++;
            },
            (e: unknown) => {
              expect(e).toBeInstanceOf(RateLimitError);
              settled++;
            },
          );
        });
      }
      for (let k = int(0, 3); k > 0; k--) {
        const at = int(0, 3 * windowMs);
        if (rnd() < 0.5) clock.at(at, () => b.pauseForServerLimit());
        else clock.at(at, () => b.pauseUntil(at + int(1, windowMs)));
      }
      await clock.run();

      const ctx = `seed ${seed}: ${limit}/${windowMs}ms, ${callers} callers, spent [${spent.join(',')}], granted [${granted.join(',')}]`;
      expect(settled, ctx).toBe(callers);
      expect(worstWindow(spent, granted, windowMs), ctx).toBeLessThanOrEqual(limit);
      // First come, first served: grants follow the order of the calls.
      expect(grantOrder, ctx).toEqual(callOrder.filter((i) => grantOrder.includes(i)));
    }
  });

  it('is not needlessly slow: a backlog drains at exactly `limit` per window', async () => {
    const clock = new VirtualClock();
    const b = budget(spec(4, 1_000), clock);
    const granted: number[] = [];
    for (let i = 0; i < 12; i++) void b.acquire().then((t) => granted.push(t));
    await clock.run();
    expect(granted).toEqual([0, 0, 0, 0, 1_000, 1_000, 1_000, 1_000, 2_000, 2_000, 2_000, 2_000]);
  });
});
