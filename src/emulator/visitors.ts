import type { Dataset, PageRow, Totals } from './data.js';
import type { Day } from './days.js';
import { addDays, parseApiDate } from './days.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;
/** Window the emulator serves when dateFrom is omitted (the service does not document its default). */
export const DEFAULT_RANGE_DAYS = 30;

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

const UNSIGNED = /^\d+$/;

function single(params: URLSearchParams, name: string, details: string[]): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) details.push(`${name} must be given at most once, got ${all.length} values`);
  return all[0];
}

function integer(text: string | undefined, name: string, min: number, max: number, details: string[]) {
  if (text === undefined) return undefined;
  const value = UNSIGNED.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    details.push(`${name} must be ${range}, got "${text}"`);
    return undefined;
  }
  return value;
}

function date(text: string | undefined, name: string, details: string[]): Day | undefined {
  if (text === undefined) return undefined;
  const day = parseApiDate(text);
  if (day === undefined)
    details.push(`${name} must be a date in YYYY-MM-DD or ISO 8601 format, got "${text}"`);
  return day;
}

/**
 * Validates every parameter of GET /visitors and reports all problems at once, each message
 * naming its parameter. Defaults (undocumented by the service, chosen here): dateTo is the
 * day after `today`, so the partial current day is included; dateFrom is 30 days before dateTo.
 */
export function parseVisitorsQuery(params: URLSearchParams, today: Day): Parsed {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, MAX_LIMIT, details);
  const offset = integer(single(params, 'offset', details), 'offset', 0, Number.MAX_SAFE_INTEGER, details);
  const from = date(single(params, 'dateFrom', details), 'dateFrom', details);
  const to = date(single(params, 'dateTo', details), 'dateTo', details);
  if (details.length > 0) return { ok: false, details };
  const dateTo = to ?? addDays(today, 1);
  const dateFrom = from ?? addDays(dateTo, -DEFAULT_RANGE_DAYS);
  if (dateFrom >= dateTo) {
    return {
      ok: false,
      details: [`dateFrom (${dateFrom}) must be before dateTo (${dateTo}): dateTo is exclusive`],
    };
  }
  return { ok: true, query: { dateFrom, dateTo, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 } };
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
