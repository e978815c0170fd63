import { formatDuration } from '../util/duration.js';

/**
 * What the run learnt from the service's 429s: the service counts every request of the
 * organization, so a 429 on a run that spent little means the hour went elsewhere (another
 * database, machine or tool with the same organization). A run that stops on it says so and how
 * long to wait, instead of naming the bound (--max-duration, --max-wait) the wait ran into.
 */
export class ServiceRefusal {
  #seen = false;
  /** Epoch ms the service's Retry-After named, when it gave one. */
  #until: number | undefined;

  /** An answer arrived with status 429. */
  refused(): void {
    this.#seen = true;
  }

  /** A 429 said when to come back. */
  retryAfter(untilMs: number): void {
    this.#seen = true;
    if (this.#until === undefined || untilMs > this.#until) this.#until = untilMs;
  }

  get seen(): boolean {
    return this.#seen;
  }

  /** Milliseconds the service asked to wait from `now`, or null when it did not say. */
  waitMs(now: number): number | null {
    return this.#until === undefined ? null : Math.max(0, this.#until - now);
  }
}

/**
 * "try again in …": the service's Retry-After when it gave one, else the budget's window (the
 * service counts requests over the hour, so the budget frees within one window at the latest).
 */
export function waitAdvice(waitMs: number | null, windowMs: number): string {
  return waitMs === null
    ? `try again in up to ${formatDuration(windowMs)} (the service gave no Retry-After)`
    : `try again in ${formatDuration(waitMs)} (the service's Retry-After)`;
}

/** The run's one line when the service's 429 stopped it. */
export function refusedLine(deferred: number, unit: string, advice: string): string {
  return `stopped early: the service refused with 429 (its request budget was spent elsewhere: another database, machine or tool with this organization's key); ${deferred} ${unit} deferred, the next run picks them up without flags; ${advice}`;
}
