import { RequestBudget } from '../api/budget.js';
import type { RateLimitSpec } from '../util/duration.js';
import { RateLimitError } from '../errors.js';
import { formatDuration } from '../util/duration.js';

export type StopReason =
  | 'max-requests'
  | 'max-duration'
  | 'max-wait'
  | 'rate-limited'
  | 'interrupted'
  | 'unreachable'
  | 'unresponsive'
  /** The run's lock went away while held (PostgreSQL: its connection broke). */
  | 'lock-lost'
  /** The disk under the database refused a write for want of space. */
  | 'disk-full'
  /** The destination's server ended the run's connection (PostgreSQL: pg_terminate_backend, a restart). */
  | 'destination-ended';

export interface RunLimits {
  readonly maxRequests?: number | undefined;
  /** Epoch ms after which no request starts. */
  readonly deadline?: number | undefined;
}

/**
 * The shared budget with the run's own bounds folded in: a request past --max-requests or one
 * that could only start after --max-duration is refused here, before it is sent, as a
 * RateLimitError that the pipeline turns into deferred windows.
 */
export class RunBudget extends RequestBudget {
  #granted = 0;
  readonly #limits: RunLimits;
  readonly #clock: () => number;

  constructor(
    spec: RateLimitSpec,
    limits: RunLimits,
    opts: {
      spent?: readonly number[];
      now?: () => number;
      sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
      /**
       * Called with each grant, before the request can be sent (the request ledger): a returned
       * promise is awaited, and a rejection keeps the request from going.
       */
      onGrant?: (at: number) => void | Promise<void>;
      /** Called when a granted request turns out never to have reached the server. */
      onRefund?: (at: number) => void;
    } = {},
  ) {
    super(spec, opts);
    this.#limits = limits;
    this.#clock = opts.now ?? Date.now;
    this.#onGrant = opts.onGrant;
    this.#onRefund = opts.onRefund;
  }

  readonly #onGrant: ((at: number) => void | Promise<void>) | undefined;
  readonly #onRefund: ((at: number) => void) | undefined;

  /** A request that never left counts against neither the budget nor --max-requests. */
  override refund(grantedAt: number): void {
    super.refund(grantedAt);
    this.#granted = Math.max(0, this.#granted - 1);
    this.#onRefund?.(grantedAt);
  }

  get granted(): number {
    return this.#granted;
  }

  override async acquire(opts: { maxWaitMs?: number; signal?: AbortSignal } = {}): Promise<number> {
    const { maxRequests, deadline } = this.#limits;
    if (maxRequests !== undefined && this.#granted >= maxRequests) {
      throw new RateLimitError(`--max-requests ${maxRequests} reached`, 0, { reason: 'max-requests' });
    }
    let maxWaitMs = opts.maxWaitMs;
    if (deadline !== undefined) {
      const left = deadline - this.#clock();
      if (left <= 0 || this.waitTimeMs() > left) {
        throw new RateLimitError(
          `--max-duration reached (the next request could start in ${formatDuration(this.waitTimeMs())})`,
          this.waitTimeMs(),
          { reason: 'max-duration' },
        );
      }
      maxWaitMs = Math.min(maxWaitMs ?? Infinity, left);
    }
    // Counted before the wait, not after the grant: with several windows in flight, each one
    // checking an uncounted total let --max-requests be overshot by the concurrency minus one.
    this.#granted++;
    let at: number;
    try {
      at = await super.acquire({ ...opts, ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) });
    } catch (e) {
      this.#granted--;
      throw e;
    }
    try {
      await this.#onGrant?.(at);
    } catch (e) {
      // Not recorded, so not sent: the slot goes back as if it had never been granted.
      super.refund(at);
      this.#granted = Math.max(0, this.#granted - 1);
      throw e;
    }
    return at;
  }
}

export interface Room {
  /** Requests the run may still send without waiting longer than `maxWaitMs` for any of them. */
  readonly requests: number;
  /** The bound that leaves the least room. */
  readonly reason: StopReason;
}

/** Room left in the run, for starting a day only when it can be finished. */
export function roomOf(budget: RunBudget, limits: RunLimits, maxWaitMs: number, now: number): Room {
  let within = maxWaitMs;
  let reason: StopReason = 'max-wait';
  if (limits.deadline !== undefined && limits.deadline - now < within) {
    within = Math.max(0, limits.deadline - now);
    reason = 'max-duration';
  }
  const rooms: Room[] = [{ requests: budget.availableWithin(within, now), reason }];
  if (limits.maxRequests !== undefined)
    rooms.push({ requests: Math.max(0, limits.maxRequests - budget.granted), reason: 'max-requests' });
  return rooms.reduce((a, b) => (b.requests < a.requests ? b : a));
}

export function stopReasonOf(e: RateLimitError): StopReason {
  const r = e.context['reason'];
  return r === 'max-requests' || r === 'max-duration' ? r : 'max-wait';
}
