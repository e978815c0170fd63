/** A date and time with no zone: `2026-11-03T10:00` or `2026-11-03 10:00:00.5`. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * ISO 8601 in UTC with milliseconds, or null: what the loader's TIMESTAMPTZ columns read. The
 * service stores UTC, so a time sent without a zone is UTC (JavaScript would read it in this
 * machine's zone, and a cron box in Berlin would shift every event by an hour).
 */
export function isoUtc(t: string | null): string | null {
  if (t === null) return null;
  const ms = Date.parse(ZONELESS.test(t) ? `${t.replace(' ', 'T')}Z` : t);
  if (!Number.isFinite(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Date keeps milliseconds; DuckDB keeps microseconds, and two turns of a thread a few
  // microseconds apart are two turns: the digits past the millisecond are kept (a zone offset
  // never changes them).
  const micro = /[T ]\d{2}:\d{2}:\d{2}\.\d{3}(\d{1,3})/.exec(t)?.[1];
  return micro === undefined ? iso : iso.replace(/Z$/, `${micro.padEnd(3, '0')}Z`);
}

/**
 * The times the tool accepts from the API: [2000-01-01, 2200-01-01) UTC. The service began long
 * after 2000 and no event is dated two centuries ahead; a year -1 or +275760 (Date's own limits)
 * is broken data, and DuckDB, the Parquet export and JavaScript do not agree on such years (one
 * stored a NULL, another failed every later `export`).
 */
export const API_TIME_RANGE = { from: '2000-01-01T00:00:00Z', to: '2200-01-01T00:00:00Z' } as const;
const FROM_MS = Date.parse(API_TIME_RANGE.from);
const TO_MS = Date.parse(API_TIME_RANGE.to);

/**
 * A time from the API, read by the one rule every stream applies: `{ iso }` (isoUtc, null when
 * the API sent none or nothing readable) or `{ outOfRange }` with the value as sent, for the
 * stream to leave its row out (or store NULL where the time is an optional attribute) and warn.
 */
export function readApiTime(t: string | null): { iso: string | null } | { outOfRange: string } {
  const iso = isoUtc(t);
  if (iso === null || t === null) return { iso: null };
  const ms = Date.parse(iso);
  return ms >= FROM_MS && ms < TO_MS ? { iso } : { outOfRange: t };
}

/** The value as a warning shows it: at most 40 characters (a hostile value may be any length). */
export function shortValue(t: string): string {
  return JSON.stringify(t.length > 40 ? `${t.slice(0, 37)}...` : t);
}
