import { API_TIME_RANGE } from '../../util/time.js';

/**
 * An ISO 8601 date and time: `2026-11-27T08:15:00Z`, `2026-11-27 08:15:00.123456+02:00`,
 * `...-0530`, `...+05`; seconds optional; no zone reads as UTC (the service stores UTC). A date
 * alone is not a time: an event has an instant.
 */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const FROM_MS = Date.parse(API_TIME_RANGE.from);
const TO_MS = Date.parse(API_TIME_RANGE.to);
const FROM_YEAR = new Date(FROM_MS).getUTCFullYear();
const TO_YEAR = new Date(TO_MS).getUTCFullYear();

/** The instant in UTC with microseconds (`2026-11-27T06:15:00.123456Z`), or undefined when it is not a time. */
export function utcMicros(text: string): string | undefined {
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s = '00', frac = '', , sign, oh = '00', om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59)
    return undefined;
  // Digits past the sixth are cut (the destinations keep microseconds); an offset never changes them.
  const micro = frac.length === 6 ? frac : frac.slice(0, 6).padEnd(6, '0');
  if (sign === undefined) {
    // UTC already (the common case): written from its fields, no Date made.
    return year >= FROM_YEAR && year < TO_YEAR ? `${y}-${mo}-${d}T${h}:${mi}:${s}.${micro}Z` : undefined;
  }
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const ms = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s)) - offsetMs;
  if (!(ms >= FROM_MS && ms < TO_MS)) return undefined;
  return `${new Date(ms).toISOString().slice(0, 19)}.${micro}Z`;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}
