import { comparePageRows, ZERO } from './aggregate.js';
import type { PageRow, Totals } from './page-counts.js';
import type { Random } from './prng.js';
import { poisson } from './prng.js';
import type { Refused } from './query-params.js';
import { dateRange, integer, single } from './query-params.js';

export const VIEWS_DEFAULT_LIMIT = 50;
export const VIEWS_MAX_LIMIT = 250;

/**
 * GET /views for a range: view events, so unlike visitors every number is additive: a path's
 * total is human + ai, and the site totals are the sums over the paths.
 */
export interface ViewsResult {
  readonly totals: Totals;
  /** Ordered total desc, then path asc (JS string comparison), like visitors. */
  readonly views: readonly PageRow[];
}

export interface ViewsQuery {
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export interface ViewsBody {
  totals: Totals;
  views: PageRow[];
  hasMore: boolean;
}

export const NO_VIEWS: ViewsResult = Object.freeze({ totals: ZERO, views: Object.freeze([]) });

function withTotals(views: PageRow[]): ViewsResult {
  views.sort(comparePageRows);
  let human = 0;
  let ai = 0;
  for (const v of views) {
    human += v.human;
    ai += v.ai;
  }
  return Object.freeze({
    totals: Object.freeze({ human, ai, total: human + ai }),
    views: Object.freeze(views),
  });
}

/**
 * One day's views from its visitor rows: every visitor viewed the page at least once, people
 * re-read a little and bots re-crawl more, so views >= visitors on every path and a path
 * nobody visited has no views. Four draws per row, whatever the counts, keep rows independent.
 */
export function generateViews(visitorRows: readonly PageRow[], random: Random): ViewsResult {
  const views = visitorRows.map((r) => {
    const humanRepeat = 0.2 + 1.3 * random();
    const aiRepeat = 0.5 + 2.5 * random();
    const human = r.human + poisson(random, r.human * humanRepeat);
    const ai = r.ai + poisson(random, r.ai * aiRepeat);
    return { path: r.path, human, ai, total: human + ai };
  });
  return withTotals(views);
}

/** Several days: event counts simply add up per path. */
export function aggregateViews(days: readonly ViewsResult[]): ViewsResult {
  if (days.length === 1 && days[0]) return days[0];
  const byPath = new Map<string, { human: number; ai: number }>();
  for (const d of days) {
    for (const v of d.views) {
      const acc = byPath.get(v.path) ?? { human: 0, ai: 0 };
      acc.human += v.human;
      acc.ai += v.ai;
      byPath.set(v.path, acc);
    }
  }
  return withTotals(
    [...byPath].map(([path, a]) => ({ path, human: a.human, ai: a.ai, total: a.human + a.ai })),
  );
}

/** Same parameters and defaults as visitors: limit 1..250 (default 50), offset >= 0, dates. */
export function parseViewsQuery(
  params: URLSearchParams,
  today: string,
): { ok: true; query: ViewsQuery } | Refused {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, VIEWS_MAX_LIMIT, details);
  const offset = integer(single(params, 'offset', details), 'offset', 0, Number.MAX_SAFE_INTEGER, details);
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  return { ok: true, query: { ...range, limit: limit ?? VIEWS_DEFAULT_LIMIT, offset: offset ?? 0 } };
}

/** One page; `hasMoreOnFullPages` is the same quirk as visitors'. */
export function viewsPage(result: ViewsResult, q: ViewsQuery, hasMoreOnFullPages: boolean): ViewsBody {
  const views = result.views.slice(q.offset, q.offset + q.limit).map((v) => ({ ...v }));
  const hasMore = hasMoreOnFullPages ? views.length === q.limit : q.offset + q.limit < result.views.length;
  return { totals: { ...result.totals }, views, hasMore };
}
