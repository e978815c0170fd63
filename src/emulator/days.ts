/** A UTC calendar day, 'YYYY-MM-DD'. */
export type Day = string;

const MS_PER_DAY = 86_400_000;
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date-times as ISO 8601 writes them: T separator, optional seconds and fraction, optional zone.
const DATE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Days since 1970-01-01 for a valid Day. */
export function dayNumber(day: Day): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / MS_PER_DAY);
}

export function dayFromNumber(n: number): Day {
  return new Date(n * MS_PER_DAY).toISOString().slice(0, 10);
}

export function addDays(day: Day, n: number): Day {
  return dayFromNumber(dayNumber(day) + n);
}

export function utcToday(now: number = Date.now()): Day {
  return dayFromNumber(Math.floor(now / MS_PER_DAY));
}

function isRealDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * The UTC day of a `YYYY-MM-DD` or ISO 8601 date-time (`2024-01-01T10:00:00+02:00`), or
 * undefined when the text is neither. A date-time without a zone is read as UTC, not as the
 * emulator host's local time, so the answer does not depend on where it runs.
 */
export function parseApiDate(text: string): Day | undefined {
  const day = DAY_RE.exec(text);
  if (day) {
    return isRealDate(Number(day[1]), Number(day[2]), Number(day[3])) ? text : undefined;
  }
  const dt = DATE_TIME_RE.exec(text);
  if (!dt) return undefined;
  if (!isRealDate(Number(dt[1]), Number(dt[2]), Number(dt[3]))) return undefined;
  if (Number(dt[4]) > 23 || Number(dt[5]) > 59 || Number(dt[6] ?? '0') > 59) return undefined;
  const zone = dt[7] ?? 'Z';
  const normalized =
    zone === 'Z' || zone === 'z' || zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(
    `${text.slice(0, text.length - (dt[7]?.length ?? 0)).replace(/[t ]/, 'T')}${normalized}`,
  );
  return Number.isFinite(ms) ? utcToday(ms) : undefined;
}
