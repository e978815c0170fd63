import type { RateLimitSpec } from '../util/duration.js';

export interface Estimate {
  readonly requests: number;
  /** Requests that fit in what is left of the current budget window. */
  readonly immediate: number;
  /** Rough wall time, dominated by budget windows once the requests exceed what is left. */
  readonly etaMs: number;
}

/**
 * Rough wall time for `requests` under a sliding-window budget with `spentInWindow` already
 * used: what is left goes now, then `limit` more every window. Latency is ignored; with the
 * real service's 100/h budget it is noise.
 */
export function estimateRun(
  requests: number,
  spec: RateLimitSpec,
  spentInWindow: number,
  perRequestMs = 300,
): Estimate {
  const left = Math.max(0, spec.limit - spentInWindow);
  const immediate = Math.min(requests, left);
  const rest = requests - immediate;
  const windows = Math.ceil(rest / spec.limit);
  return {
    requests,
    immediate,
    etaMs: windows * spec.windowMs + Math.min(requests, spec.limit) * perRequestMs,
  };
}
