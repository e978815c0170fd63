import { getMaxListeners, setMaxListeners } from 'node:events';
import pRetry from 'p-retry';
import { AuthError, HttpStatusError, NetworkError, RateLimitError, ValidationError } from '../errors.js';
import { formatDuration } from '../util/duration.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** setTimeout as a promise that rejects with the signal's own reason (not a generic AbortError). */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

export interface BackoffSpec {
  /** Cap of the first retry's delay; also scales the floor (see backoffDelay). */
  readonly minMs: number;
  /** No single backoff delay is longer than this. */
  readonly maxMs: number;
}

/**
 * The one place that decides what is worth another attempt. Timeouts (408), rate limits (429),
 * server errors (5xx) and network failures are transient. Client errors (400/401/403/404) and
 * schema mismatches will fail the same way again, and a RateLimitError means the wait is longer
 * than the caller allows: it must reach the caller, which defers the work instead.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof RateLimitError || err instanceof ValidationError || err instanceof AuthError) {
    return false;
  }
  if (err instanceof HttpStatusError) {
    return err.status === 408 || err.status === 429 || (err.status >= 500 && err.status <= 599);
  }
  return err instanceof NetworkError;
}

/**
 * Exponential backoff with full jitter: a uniform draw in [0, min(maxMs, minMs * 2^(attempt-1))],
 * which spreads concurrent retriers apart. The draw is raised to a floor of minMs/10 per attempt
 * (never below 1 ms) because a draw of ~0 would otherwise retry at once, and a run of small
 * draws is a hot loop against a server that is already struggling. `attempt` is the number of
 * the attempt that just failed (1 for the first).
 */
export function backoffDelay(attempt: number, spec: BackoffSpec, random: () => number = Math.random): number {
  const minMs = Math.max(1, spec.minMs);
  const maxMs = Math.max(minMs, spec.maxMs);
  const n = Math.max(1, Math.floor(attempt));
  const cap = Math.min(maxMs, minMs * 2 ** (n - 1));
  const floor = Math.min(cap, Math.max(1, (minMs / 10) * n));
  const jittered = Math.min(1, Math.max(0, random())) * cap;
  return Math.round(Math.max(floor, jittered));
}

export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  readonly error: Error;
  /** How long we wait before the next attempt. */
  readonly delayMs: number;
}

export interface RetryOptions {
  /** Attempts in all, the first included (>= 1). */
  readonly maxAttempts: number;
  readonly backoff: BackoffSpec;
  /** A Retry-After hint longer than this throws RateLimitError instead of sleeping. Default: no limit. */
  readonly maxWaitMs?: number;
  /** Narrows isRetryable, e.g. a POST is only safe to repeat after a 429. Default: isRetryable. */
  readonly retryable?: (err: unknown) => boolean;
  /** Fewer attempts for some failures (never more than maxAttempts). */
  readonly attemptsFor?: (err: unknown) => number | undefined;
  readonly onRetry?: (e: RetryEvent) => void;
  readonly sleep?: Sleep;
  readonly random?: () => number;
  readonly signal?: AbortSignal;
}

/** The server's own wait hint (Retry-After), when the failure carried one. */
function hintOf(err: unknown): number | undefined {
  return err instanceof HttpStatusError ? err.retryAfterMs : undefined;
}

/**
 * Every request in flight listens for the run's one abort signal (p-retry, the budget wait, the
 * fetch) and stops when it settles: up to 4 listeners per request times --concurrency (max 32),
 * not a leak. Node warns past 10, which a sync with --concurrency 6 reaches.
 */
const LISTENERS_IN_FLIGHT = 4 * 32;

function allowListenersPerRequest(signal: AbortSignal): void {
  const max = getMaxListeners(signal);
  if (max !== 0 && max < LISTENERS_IN_FLIGHT) setMaxListeners(LISTENERS_IN_FLIGHT, signal);
}

/**
 * Runs `fn` until it succeeds, fails with something not retryable, or uses up maxAttempts; then
 * rethrows the last error. p-retry counts attempts and handles abort; the delay is ours (its own
 * timer is disabled with minTimeout 0) because it must honour Retry-After and an injectable sleep.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  if (!Number.isInteger(opts.maxAttempts) || opts.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer >= 1, got ${opts.maxAttempts}`);
  }
  const retryable = opts.retryable ?? isRetryable;
  const sleep = opts.sleep ?? defaultSleep;
  const maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY;

  const tooLong = (error: Error, hint: number, attempt: number): RateLimitError =>
    new RateLimitError(
      `${error.message}; the server asks to wait ${formatDuration(hint)} (Retry-After), longer than the allowed ${formatDuration(maxWaitMs)}`,
      hint,
      { ...(error instanceof HttpStatusError ? error.request : {}), attempt },
      { cause: error },
    );
  if (opts.signal) allowListenersPerRequest(opts.signal);
  let attempts = 0;
  try {
    return await pRetry(
      (n) => {
        attempts = n;
        return fn(n);
      },
      {
        retries: opts.maxAttempts - 1,
        minTimeout: 0,
        maxTimeout: 0,
        ...(opts.signal ? { signal: opts.signal } : {}),
        // Called only when attempts remain; returning true makes p-retry try again at once.
        shouldRetry: async ({ error, attemptNumber }) => {
          opts.signal?.throwIfAborted();
          if (!retryable(error)) return false;
          if (attemptNumber >= (opts.attemptsFor?.(error) ?? Number.POSITIVE_INFINITY)) return false;
          const hint = hintOf(error);
          if (hint !== undefined && hint > maxWaitMs) throw tooLong(error, hint, attemptNumber);
          const delayMs = hint ?? backoffDelay(attemptNumber, opts.backoff, opts.random);
          opts.onRetry?.({ attempt: attemptNumber, error, delayMs });
          await sleep(delayMs, opts.signal);
          return true;
        },
      },
    );
  } catch (e) {
    // The last attempt never reaches shouldRetry: its Retry-After must still say "rate limit".
    const hint = hintOf(e);
    if (e instanceof Error && hint !== undefined && hint > maxWaitMs && retryable(e))
      throw tooLong(e, hint, attempts);
    throw e;
  }
}
