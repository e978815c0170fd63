import { describe, expect, it } from 'vitest';
import { DayAdmission, type Flight } from '../../src/pipeline/admission.js';
import { RunBudget } from '../../src/pipeline/limits.js';
import { parseRateLimit } from '../../src/util/duration.js';

const now = (): number => 1_000_000;
const never = (): boolean => false;

function admission(maxRequests: number, history: Record<string, number> = { p: 4 }): DayAdmission {
  const limits = { maxRequests };
  return new DayAdmission({
    budget: new RunBudget(parseRateLimit('1000/1h'), limits, { now }),
    limits,
    maxWaitMs: 60_000,
    now,
    history: new Map(Object.entries(history)),
  });
}

describe('starting a day only when it can be finished', () => {
  it('admits days while their expected pages fit, then refuses with the bound that left no room', async () => {
    const a = admission(9);
    const first = await a.admit('p', never);
    const second = await a.admit('p', never);
    expect(first).toMatchObject({ expected: 4, pages: 0 });
    expect(second).toMatchObject({ expected: 4 });
    // 4 + 4 needed by the days in flight, 4 more would make 12 > 9: it waits for one to finish.
    let third: Awaited<ReturnType<DayAdmission['admit']>> | 'pending' = 'pending';
    const waiting = a.admit('p', never).then((r) => (third = r));
    await new Promise((r) => setImmediate(r));
    expect(third).toBe('pending');
    (first as Flight).pages = 4;
    a.finish(first as Flight, 'p', 4);
    await waiting;
    expect(third).toMatchObject({ expected: 4 });
  });

  it('refuses a day with nothing in flight when it cannot fit at all', async () => {
    const a = admission(3);
    expect(await a.admit('p', never)).toEqual({ refused: 'max-requests' });
  });

  it('gives up waiting when the run is stopping', async () => {
    const a = admission(5);
    const first = (await a.admit('p', never)) as Flight;
    let stop = false;
    const waiting = a.admit('p', () => stop);
    stop = true;
    a.finish(first, 'p');
    expect(await waiting).toBeUndefined();
  });

  it("expects one page a day without history, then this run's average", async () => {
    const a = admission(100, {});
    expect(a.expectedPages('q')).toBe(1);
    const f = (await a.admit('q', never)) as Flight;
    a.finish(f, 'q', 7);
    expect(a.expectedPages('q')).toBe(7);
  });
});
