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

/**
 * Pages a window of each stream takes on a busy site, for a database with no history yet (the
 * emulator's default data, about 1,000 pages a day: 30 days of the default streams cost 273
 * requests, docs/getting-started.md). Day streams: a day; feedback: a month; assistant: a week.
 * Once a stream has loaded windows, their own pages (sync_windows.pages) take over.
 */
export const TYPICAL_PAGES_PER_WINDOW: Readonly<Record<string, number>> = {
  visitors: 2.5,
  views: 2.5,
  searches: 2,
  feedback: 16,
  assistant: 1,
  caller_stats: 1,
};

/** A stream's typical pages per window (1 for a stream with no documented size). */
export function typicalPages(stream: string): number {
  return TYPICAL_PAGES_PER_WINDOW[stream] ?? 1;
}
