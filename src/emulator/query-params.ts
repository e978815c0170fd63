import type { Day } from './days.js';
import { addDays, parseApiDate } from './days.js';

/** Window the emulator serves when dateFrom is omitted (the service does not document its default). */
export const DEFAULT_RANGE_DAYS = 30;

/** A parameter check that failed: `error` is the body's headline, `details` one message per problem. */
export interface Refused {
  ok: false;
  error?: string;
  details: string[];
}

export interface DateRange {
  dateFrom: Day;
  dateTo: Day;
}

const UNSIGNED = /^\d+$/;

export function single(params: URLSearchParams, name: string, details: string[]): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) details.push(`${name} must be given at most once, got ${all.length} values`);
  return all[0];
}

/** A whole number in [min, max]; a fraction is refused even where the service types it `number`. */
export function integer(
  text: string | undefined,
  name: string,
  min: number,
  max: number,
  details: string[],
): number | undefined {
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
 * Reads dateFrom and dateTo, pushing problems to `details`. Defaults (undocumented by the
 * service, chosen here): dateTo is the day after `today`, so the partial current day is
 * included; dateFrom is 30 days before dateTo. The order check runs only when both read cleanly.
 */
export function dateRange(params: URLSearchParams, today: Day, details: string[]): DateRange | undefined {
  const from = date(single(params, 'dateFrom', details), 'dateFrom', details);
  const to = date(single(params, 'dateTo', details), 'dateTo', details);
  if (details.length > 0) return undefined;
  const dateTo = to ?? addDays(today, 1);
  const dateFrom = from ?? addDays(dateTo, -DEFAULT_RANGE_DAYS);
  if (dateFrom >= dateTo) {
    details.push(`dateFrom (${dateFrom}) must be before dateTo (${dateTo}): dateTo is exclusive`);
    return undefined;
  }
  return { dateFrom, dateTo };
}
