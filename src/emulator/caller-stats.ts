import type { Random } from './prng.js';
import { poisson } from './prng.js';
import type { Refused } from './query-params.js';
import { dateRange } from './query-params.js';

/** GET /assistant/caller-stats: assistant queries by caller; total = web + api + other. */
export interface CallerStats {
  readonly web: number;
  readonly api: number;
  readonly other: number;
  readonly total: number;
}

export interface CallerStatsQuery {
  dateFrom: string;
  dateTo: string;
}

export const NO_CALLS: CallerStats = Object.freeze({ web: 0, api: 0, other: 0, total: 0 });

function stats(web: number, api: number, other: number): CallerStats {
  return Object.freeze({ web, api, other, total: web + api + other });
}

/**
 * One day from the day's human views (people on the site ask the assistant; integrations and
 * the API less so). `exactly` forces an edge day's total: 0, or 1 (a single API call, so the
 * one call is not where a naive reader would guess).
 */
export function generateCallerStats(humanViews: number, random: Random, exactly?: number): CallerStats {
  const web = poisson(random, humanViews * 0.02);
  const api = poisson(random, humanViews * 0.004 * (0.5 + random()));
  const other = poisson(random, humanViews * 0.001);
  if (exactly === 0) return NO_CALLS;
  if (exactly === 1) return stats(0, 1, 0);
  return stats(web, api, other);
}

/** Several days: every count adds up. */
export function aggregateCallerStats(days: readonly CallerStats[]): CallerStats {
  let web = 0;
  let api = 0;
  let other = 0;
  for (const d of days) {
    web += d.web;
    api += d.api;
    other += d.other;
  }
  return stats(web, api, other);
}

/** Only dates: the operation takes no limit and pages nothing. */
export function parseCallerStatsQuery(
  params: URLSearchParams,
  today: string,
): { ok: true; query: CallerStatsQuery } | Refused {
  const details: string[] = [];
  const range = dateRange(params, today, details);
  return range ? { ok: true, query: range } : { ok: false, details };
}
