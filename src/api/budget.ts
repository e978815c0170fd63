import { RateLimitError } from '../errors.js';
import { formatDuration, type RateLimitSpec } from '../util/duration.js';
import { abortReason, defaultSleep, type Sleep } from './retry.js';

export interface BudgetOptions {
  /** Epoch ms of requests already spent (the ledger of earlier runs); order does not matter. */
  readonly spent?: readonly number[];
  readonly now?: () => number;
  readonly sleep?: Sleep;
}

export interface AcquireOptions {
  /** Longest total wait this caller accepts; a longer one throws RateLimitError (nothing recorded). */
  readonly maxWaitMs?: number;
  readonly signal?: AbortSignal;
  /**
   * Lower goes first; equal priorities are served in arrival order. The sync gives each day its
   * position in the plan, so that when the budget runs short the oldest day in flight gets the
   * next slot and finishes, instead of every day in flight advancing a page at a time and none
   * finishing before the run has to stop.
   */
  readonly priority?: number;
}

interface Waiter {
  readonly priority: number;
  readonly deadline: number;
  readonly maxWaitMs: number;
  readonly resolve: (at: number) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * The client-side request budget: a sliding-window limiter that every API request passes through.
 * Guarantee: never more than `spec.limit` grants in any half-open interval of `spec.windowMs`,
 * counting the ledger of earlier runs. A request is granted at `g` only when fewer than `limit`
 * recorded requests lie after `g - windowMs`; counting everything after that point (even times
 * in the future, e.g. from a skewed ledger) covers every window that contains `g`.
 *
 * Waiters are served by a single pump in priority order, first come first served within a
 * priority, so a steady stream of new callers of the same priority never starves one that has
 * been waiting.
 */
export class RequestBudget {
  readonly spec: RateLimitSpec;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  /** Grant times, ascending; only those that can still fall in a window matter. */
  private readonly times: number[];
  private pausedUntil = Number.NEGATIVE_INFINITY;
  private readonly queue: Waiter[] = [];
  private pumping = false;
  /** Cuts the pump's sleep short when the waiter it sleeps for goes away. */
  private wake: AbortController | undefined;

  constructor(spec: RateLimitSpec, opts: BudgetOptions = {}) {
    if (!Number.isInteger(spec.limit) || spec.limit < 1 || !(spec.windowMs > 0)) {
      throw new RangeError(`invalid rate limit ${spec.text}: need limit >= 1 and a window > 0`);
    }
    this.spec = spec;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? defaultSleep;
    this.times = (opts.spent ?? []).filter((t) => Number.isFinite(t)).sort((a, b) => a - b);
  }

  /** Requests that still count against the window at `now`. */
  spentInWindow(now = this.now()): number {
    return this.times.length - this.firstInWindow(now);
  }

  /** Milliseconds until a request may be sent (0 when a slot is free now and nothing is paused). */
  waitTimeMs(now = this.now()): number {
    const start = this.firstInWindow(now);
    const inWindow = this.times.length - start;
    // Dropping the oldest (inWindow - limit + 1) requests leaves room for one more.
    const slotAt =
      inWindow < this.spec.limit
        ? now
        : (this.times[start + inWindow - this.spec.limit] ?? now) + this.spec.windowMs;
    return Math.max(0, slotAt - now, this.pausedUntil - now);
  }

  /**
   * How many requests could be granted from now until `withinMs` from now: the slots free at
   * that time, counting the requests recorded so far (0 while a pause lasts past it). The sync
   * uses it to start a day only when the budget can serve the whole day within --max-wait.
   */
  availableWithin(withinMs: number, now = this.now()): number {
    const at = now + Math.max(0, Math.min(withinMs, this.spec.windowMs));
    if (this.pausedUntil > at) return 0;
    return Math.max(0, this.spec.limit - (this.times.length - this.firstInWindow(at)));
  }

  /** Epoch ms when the next request may be sent (`now` when one may go now). */
  freesAt(now = this.now()): number {
    return now + this.waitTimeMs(now);
  }

  /** Nobody acquires before `epochMs` (a 429 with Retry-After). Pauses only ever extend. */
  pauseUntil(epochMs: number): void {
    if (Number.isFinite(epochMs) && epochMs > this.pausedUntil) {
      this.pausedUntil = epochMs;
    }
  }

  /**
   * A 429 without a hint: the server counts requests we do not see (other tools with the same
   * organization), so assume its window is full and wait until our oldest request in the window
   * ages out. With nothing recorded, wait one slot's worth (windowMs / limit), never zero.
   */
  pauseForServerLimit(): void {
    const now = this.now();
    const oldest = this.times[this.firstInWindow(now)];
    const fallback = now + Math.max(1, Math.ceil(this.spec.windowMs / this.spec.limit));
    this.pauseUntil(oldest !== undefined ? Math.max(oldest + this.spec.windowMs, now + 1) : fallback);
  }

  /**
   * The request granted at `grantedAt` got its response at `completedAt`: count it from then on.
   * The server counts a request when it arrives, which is some time between our grant and the
   * response; a burst that waited in a connection queue arrives bunched up, so a window measured
   * from grant times alone can look longer to us than to the server (we saw 41 arrivals in 3.8 s
   * under a 40/4s limit). The completion time is never earlier than the arrival, so windows
   * measured from it are safe.
   */
  complete(grantedAt: number, completedAt: number = this.now()): void {
    if (!(completedAt > grantedAt)) return;
    const i = this.indexOf(grantedAt);
    if (i < 0) return;
    this.times.splice(i, 1);
    let j = this.times.length;
    while (j > 0 && (this.times[j - 1] ?? 0) > completedAt) j--;
    this.times.splice(j, 0, completedAt);
  }

  /**
   * The request granted at `grantedAt` never reached the server (connection refused, DNS, TLS):
   * the service counted nothing, so neither do we. A dead endpoint must not use up the hour.
   */
  refund(grantedAt: number): void {
    const i = this.indexOf(grantedAt);
    if (i < 0) return;
    this.times.splice(i, 1);
    this.wake?.abort();
  }

  /** Waits for a slot (by priority, then first come, first served), records it and returns the grant time. */
  acquire(opts: AcquireOptions = {}): Promise<number> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY;
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        priority: opts.priority ?? 0,
        deadline: this.now() + maxWaitMs,
        maxWaitMs,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.queue.indexOf(waiter);
          if (i < 0) return;
          this.queue.splice(i, 1);
          reject(abortReason(signal));
          if (i === 0) this.wake?.abort();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      let i = this.queue.length;
      while (i > 0 && (this.queue[i - 1]?.priority ?? 0) > waiter.priority) i--;
      this.queue.splice(i, 0, waiter);
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let head = this.queue[0]; head !== undefined; head = this.queue[0]) {
        const now = this.now();
        const wait = this.waitTimeMs(now);
        if (wait <= 0) {
          this.record(now);
          this.settle(head, () => head.resolve(now));
        } else if (now + wait > head.deadline) {
          this.settle(head, () => head.reject(this.tooLong(now, wait, head.maxWaitMs)));
        } else {
          this.wake = new AbortController();
          try {
            await this.sleep(wait, this.wake.signal);
          } catch {
            // Woken early because the head left the queue: look again.
          }
        }
      }
    } finally {
      this.pumping = false;
      this.wake = undefined;
    }
  }

  private settle(waiter: Waiter, done: () => void): void {
    this.queue.shift();
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
    done();
  }

  private tooLong(now: number, wait: number, maxWaitMs: number): RateLimitError {
    const at = new Date(now + wait).toISOString();
    const why =
      this.pausedUntil - now >= wait
        ? 'the API asked us to pause (429)'
        : `the request budget ${this.spec.text} is spent (${this.spentInWindow(now)} in the window)`;
    return new RateLimitError(
      `${why}: the next request may go in ${formatDuration(wait)} (at ${at}), longer than the allowed wait of ${formatDuration(maxWaitMs)}`,
      wait,
      { freesAt: at, limit: this.spec.limit, windowMs: this.spec.windowMs },
    );
  }

  private record(at: number): void {
    // Grants come from a clock that is normally monotonic: append, but keep order if it is not.
    let i = this.times.length;
    while (i > 0 && (this.times[i - 1] ?? 0) > at) i--;
    this.times.splice(i, 0, at);
    this.prune(at);
  }

  /**
   * Forgets requests that can no longer share a window with anything granted from now on
   * (assuming the clock does not jump back by more than a window).
   */
  private prune(now: number): void {
    const start = this.firstInWindow(now);
    if (start > 0) this.times.splice(0, start);
  }

  private indexOf(t: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] ?? 0) < t) lo = mid + 1;
      else hi = mid;
    }
    return this.times[lo] === t ? lo : -1;
  }

  /** Index of the first recorded time that still counts at `now` (t > now - windowMs). */
  private firstInWindow(now: number): number {
    const edge = now - this.spec.windowMs;
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] ?? 0) > edge) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
