import { parseRateLimit } from '../util/duration.js';
import type { RateLimitSpec } from '../util/duration.js';

/**
 * The service's sliding-window limit: a request is refused when `limit` requests already
 * arrived in the `windowMs` before it. Refused requests are recorded too, as the real
 * service counts them, so a client that hammers through 429s stays locked out.
 */
export class SlidingWindowLimiter {
  readonly spec: RateLimitSpec;
  private readonly arrivals: number[] = [];
  private head = 0;

  constructor(spec: RateLimitSpec | string) {
    this.spec = typeof spec === 'string' ? parseRateLimit(spec) : spec;
  }

  /** Records an arrival at `at` (epoch ms); true when it is within the limit. */
  hit(at: number): boolean {
    // An arrival exactly windowMs ago has aged out: the window is half-open, like the client's budget.
    while (this.head < this.arrivals.length && (this.arrivals[this.head] ?? 0) <= at - this.spec.windowMs) {
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.arrivals.length) {
      this.arrivals.splice(0, this.head);
      this.head = 0;
    }
    const allowed = this.arrivals.length - this.head < this.spec.limit;
    this.arrivals.push(at);
    return allowed;
  }

  /** Arrivals still inside the window at `at`. */
  inWindow(at: number): number {
    return this.arrivals.slice(this.head).filter((t) => t > at - this.spec.windowMs).length;
  }
}
