import type { Random } from './prng.js';
import { mulberry32 } from './prng.js';

/** What can go wrong with one attempt. Every kind but `slow` is a failure the client must retry. */
export type FaultKind =
  | 'rate-limit-seconds'
  | 'rate-limit-date'
  | 'server-error'
  | 'bad-gateway'
  | 'unavailable'
  | 'connection-reset'
  | 'slow';

export const FAULT_KINDS: readonly FaultKind[] = Object.freeze([
  'rate-limit-seconds',
  'rate-limit-date',
  'server-error',
  'bad-gateway',
  'unavailable',
  'connection-reset',
  'slow',
]);

/** Failing faults in a row one request may meet before it is answered properly. */
export const MAX_CONSECUTIVE_FAILURES = 3;

export interface FaultInjectorOptions {
  /** Chance in [0, 1] that an attempt meets a fault. */
  probability: number;
  seed: number;
  /** The kinds to draw from (default all): a test of long runs may leave out the 429s that pause everything. */
  kinds?: readonly FaultKind[];
}

/**
 * Decides, per attempt, whether to inject a fault. It has its own seeded stream so that
 * fault patterns are reproducible and independent of the data. A request (method + path +
 * query) never fails more than MAX_CONSECUTIVE_FAILURES times in a row, so a client that
 * retries at least that often always gets through.
 */
export class FaultInjector {
  readonly probability: number;
  private readonly random: Random;
  private readonly streaks = new Map<string, number>();
  private readonly kinds: readonly FaultKind[];

  constructor(opts: FaultInjectorOptions) {
    if (!(opts.probability >= 0 && opts.probability <= 1)) {
      throw new RangeError(`faults must be a probability between 0 and 1, got ${opts.probability}`);
    }
    this.probability = opts.probability;
    this.random = mulberry32(opts.seed);
    this.kinds = opts.kinds && opts.kinds.length > 0 ? opts.kinds : FAULT_KINDS;
  }

  /** The fault for this attempt of `requestKey`, or undefined for a plain correct answer. */
  next(requestKey: string): FaultKind | undefined {
    if (this.probability === 0) return undefined;
    // Both draws happen on every attempt, so a forced answer does not shift later choices.
    const hit = this.random() < this.probability;
    const kind = this.kinds[Math.floor(this.random() * this.kinds.length)] ?? 'slow';
    const streak = this.streaks.get(requestKey) ?? 0;
    const fault = hit && !(kind !== 'slow' && streak >= MAX_CONSECUTIVE_FAILURES) ? kind : undefined;
    if (fault !== undefined && fault !== 'slow') this.streaks.set(requestKey, streak + 1);
    else this.streaks.delete(requestKey);
    return fault;
  }
}

export function isFailingFault(kind: FaultKind | undefined): boolean {
  return kind !== undefined && kind !== 'slow';
}
