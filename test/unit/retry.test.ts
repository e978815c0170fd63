import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryable, withRetry, type RetryEvent } from '../../src/api/retry.js';
import {
  AuthError,
  HttpStatusError,
  NetworkError,
  RateLimitError,
  ValidationError,
  type RequestDescription,
} from '../../src/errors.js';

const REQ: RequestDescription = { method: 'GET', path: '/v1/analytics/p/visitors', query: 'limit=250' };
const http = (status: number, retryAfterMs?: number) => new HttpStatusError(status, REQ, { retryAfterMs });

describe('isRetryable', () => {
  it('treats 400, 401, 403 and 404 as terminal', () => {
    for (const status of [400, 401, 403, 404]) expect(isRetryable(http(status)), String(status)).toBe(false);
    expect(isRetryable(new AuthError(401, REQ))).toBe(false);
    expect(isRetryable(new AuthError(403, REQ))).toBe(false);
  });

  it('retries 408, 429, 500, 502, 503 and 504', () => {
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(isRetryable(http(status)), String(status)).toBe(true);
  });

  it('retries network failures (resets, timeouts)', () => {
    expect(
      isRetryable(new NetworkError(REQ, 'the connection was closed by the other side (ECONNRESET)')),
    ).toBe(true);
  });

  it('does not retry schema mismatches, a rate-limit deferral or unknown errors', () => {
    expect(isRetryable(new ValidationError(REQ, ['visitors[0].total: Too small']))).toBe(false);
    expect(isRetryable(new RateLimitError('budget spent', 60_000))).toBe(false);
    expect(isRetryable(new TypeError('bug'))).toBe(false);
    expect(isRetryable('a string')).toBe(false);
  });
});

describe('backoffDelay', () => {
  const spec = { minMs: 500, maxMs: 30_000 };

  it('draws from [0, min(maxMs, minMs * 2^(attempt-1))] with full jitter', () => {
    expect(backoffDelay(1, spec, () => 0.999)).toBe(500);
    expect(backoffDelay(2, spec, () => 0.999)).toBe(999);
    expect(backoffDelay(4, spec, () => 0.999)).toBe(3996);
    expect(backoffDelay(3, spec, () => 0.5)).toBe(1000);
  });

  it('never exceeds maxMs however many attempts failed', () => {
    for (let attempt = 1; attempt <= 40; attempt++) {
      expect(backoffDelay(attempt, spec, () => 0.999)).toBeLessThanOrEqual(30_000);
    }
    expect(backoffDelay(40, spec, () => 0.999)).toBe(29_970);
  });

  it('never returns zero: a draw of 0 still waits a floor that grows with the attempt', () => {
    expect(backoffDelay(1, spec, () => 0)).toBe(50);
    expect(backoffDelay(2, spec, () => 0)).toBe(100);
    expect(backoffDelay(5, spec, () => 0)).toBe(250);
    expect(backoffDelay(1, { minMs: 0, maxMs: 0 }, () => 0)).toBeGreaterThanOrEqual(1);
  });

  it('keeps every draw within [floor, cap] for random values at both ends', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const cap = Math.min(30_000, 500 * 2 ** (attempt - 1));
      for (const r of [0, 0.001, 0.5, 0.999]) {
        const d = backoffDelay(attempt, spec, () => r);
        expect(d).toBeGreaterThanOrEqual(50 * attempt);
        expect(d).toBeLessThanOrEqual(cap);
      }
    }
  });
});

describe('withRetry', () => {
  function harness() {
    const slept: number[] = [];
    const retries: RetryEvent[] = [];
    return {
      slept,
      retries,
      opts: {
        maxAttempts: 4,
        backoff: { minMs: 100, maxMs: 1_000 },
        random: () => 0.5,
        sleep: (ms: number) => {
          slept.push(ms);
          return Promise.resolve();
        },
        onRetry: (e: RetryEvent) => retries.push(e),
      },
    };
  }

  it('retries a 503 with backoff and returns the eventual success', async () => {
    const h = harness();
    let calls = 0;
    const result = await withRetry((attempt) => {
      calls++;
      return attempt < 3 ? Promise.reject(http(503)) : Promise.resolve('ok');
    }, h.opts);
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    expect(h.slept).toEqual([50, 100]);
    expect(h.retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 50],
      [2, 100],
    ]);
  });

  it('stops after maxAttempts and rethrows the last error', async () => {
    const h = harness();
    let calls = 0;
    const err = withRetry(() => {
      calls++;
      return Promise.reject(http(500 + calls));
    }, h.opts);
    await expect(err).rejects.toMatchObject({ status: 504 });
    expect(calls).toBe(4);
    expect(h.retries).toHaveLength(3);
  });

  it('does not retry a terminal error and does not sleep', async () => {
    const h = harness();
    let calls = 0;
    await expect(
      withRetry(() => {
        calls++;
        return Promise.reject(http(404));
      }, h.opts),
    ).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(1);
    expect(h.slept).toEqual([]);
  });

  it('waits exactly the Retry-After hint instead of the backoff', async () => {
    const h = harness();
    let calls = 0;
    await withRetry(() => (calls++ === 0 ? Promise.reject(http(429, 7_000)) : Promise.resolve(1)), h.opts);
    expect(h.slept).toEqual([7_000]);
  });

  it('throws RateLimitError instead of sleeping when the hint is longer than maxWaitMs', async () => {
    const h = harness();
    const err = await withRetry(() => Promise.reject(http(429, 3_600_000)), {
      ...h.opts,
      maxWaitMs: 600_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).waitMs).toBe(3_600_000);
    expect((err as Error).message).toContain('1h 00m');
    expect((err as Error).message).toContain('GET /v1/analytics/p/visitors?limit=250 answered HTTP 429');
    expect(h.slept).toEqual([]);
  });

  it('throws RateLimitError for a long Retry-After on the last attempt too', async () => {
    const h = harness();
    let calls = 0;
    const err = await withRetry(
      () => (calls++ < 3 ? Promise.reject(http(503)) : Promise.reject(http(429, 3_600_000))),
      { ...h.opts, maxWaitMs: 600_000 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).waitMs).toBe(3_600_000);
    expect((err as RateLimitError).context).toMatchObject({ attempt: 4 });
  });

  it('lets a RateLimitError from the attempt itself through without retrying', async () => {
    const h = harness();
    let calls = 0;
    await expect(
      withRetry(() => {
        calls++;
        return Promise.reject(new RateLimitError('budget spent', 60_000));
      }, h.opts),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(calls).toBe(1);
  });

  it('never loops without waiting, even when the random draw is 0 every time', async () => {
    const h = harness();
    await expect(
      withRetry(() => Promise.reject(http(500)), { ...h.opts, random: () => 0 }),
    ).rejects.toThrow();
    expect(h.slept).toHaveLength(3);
    for (const ms of h.slept) expect(ms).toBeGreaterThan(0);
    expect(h.slept).toEqual([10, 20, 30]);
  });

  it('applies a narrower retryable predicate (POST only on 429)', async () => {
    const h = harness();
    const only429 = (e: unknown) => e instanceof HttpStatusError && e.status === 429;
    let calls = 0;
    await expect(
      withRetry(
        () => {
          calls++;
          return Promise.reject(http(500));
        },
        { ...h.opts, retryable: only429 },
      ),
    ).rejects.toMatchObject({ status: 500 });
    expect(calls).toBe(1);
  });

  it('stops when the signal aborts', async () => {
    const h = harness();
    const ac = new AbortController();
    let calls = 0;
    const p = withRetry(
      () => {
        calls++;
        ac.abort(new Error('stop'));
        return Promise.reject(http(500));
      },
      { ...h.opts, signal: ac.signal },
    );
    await expect(p).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });

  it('refuses a maxAttempts below 1', async () => {
    const h = harness();
    await expect(withRetry(() => Promise.resolve(1), { ...h.opts, maxAttempts: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
