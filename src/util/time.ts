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
