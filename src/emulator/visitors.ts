import type { Dataset, PageRow, Totals } from './data.js';
import type { Day } from './days.js';
import { dateRange, integer, single } from './query-params.js';

export { DEFAULT_RANGE_DAYS } from './query-params.js';
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

export interface VisitorsQuery {
  dateFrom: Day;
  dateTo: Day;
  limit: number;
  offset: number;
}

export interface VisitorsBody {
  totals: Totals;
  visitors: PageRow[];
  hasMore: boolean;
}

export type Parsed = { ok: true; query: VisitorsQuery } | { ok: false; details: string[] };

/**
 * Validates every parameter of GET /visitors and reports all problems at once, each message
 * naming its parameter; dates default as `dateRange` says.
 */
export function parseVisitorsQuery(params: URLSearchParams, today: Day): Parsed {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, MAX_LIMIT, details);
  const offset = integer(single(params, 'offset', details), 'offset', 0, Number.MAX_SAFE_INTEGER, details);
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  return { ok: true, query: { ...range, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 } };
}

/**
 * One page. `hasMore` is exact unless `hasMoreOnFullPages`, a quirk where the server only
 * knows the page came back full: a day of exactly 250 rows then needs an empty second page.
 */
export function visitorsPage(dataset: Dataset, q: VisitorsQuery, hasMoreOnFullPages: boolean): VisitorsBody {
  const { totals, rows } = dataset.query(q.dateFrom, q.dateTo);
  const visitors = rows.slice(q.offset, q.offset + q.limit);
  const hasMore = hasMoreOnFullPages ? visitors.length === q.limit : q.offset + q.limit < rows.length;
  return { totals, visitors, hasMore };
}
