import { InternalError, UsageError } from '../errors.js';

/** A calendar day in UTC, as the API's dateFrom/dateTo take it: `YYYY-MM-DD`. */
export type Day = string;

const DAY_MS = 86_400_000;
/** Mintlify started long after this: an earlier day is a typo, e.g. 0226 or 1026 for 2026. */
const FIRST_DAY: Day = '2000-01-01';
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of the day's UTC midnight, or NaN when the text is not a real calendar day. */
export function dayToMs(day: string): number {
  const m = DAY_RE.exec(day);
  if (!m) return NaN;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2026-02-30 over to March: a real day must survive the round trip.
  return msToDay(ms) === day ? ms : NaN;
}

export function msToDay(ms: number): Day {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isDay(text: string): boolean {
  return !Number.isNaN(dayToMs(text));
}

/** Parses a user-supplied day; the message says what is wrong and what is expected. */
export function parseDay(text: string, flag: string): Day {
  if (!DAY_RE.test(text)) {
    throw new UsageError(`${flag} "${text}" is not a date: use YYYY-MM-DD (UTC), e.g. 2026-01-31`, {
      flag,
      value: text,
    });
  }
  if (!isDay(text)) {
    throw new UsageError(`${flag} "${text}" is not a real calendar day`, { flag, value: text });
  }
  if (text < FIRST_DAY) {
    throw new UsageError(
      `${flag} "${text}" is too early: Mintlify has no analytics before ${FIRST_DAY.slice(0, 4)}; give a day from ${FIRST_DAY} on`,
      { flag, value: text },
    );
  }
  return text;
}

export function addDays(day: Day, n: number): Day {
  return msToDay(dayToMs(day) + n * DAY_MS);
}

export function todayUtc(nowMs: number = Date.now()): Day {
  return msToDay(nowMs);
}

/** Number of days from a to b (b - a). */
export function daysBetween(a: Day, b: Day): number {
  return Math.round((dayToMs(b) - dayToMs(a)) / DAY_MS);
}

/** Every day of the half-open range [from, to), ascending. */
export function dayRange(from: Day, to: Day): Day[] {
  const out: Day[] = [];
  for (let ms = dayToMs(from), end = dayToMs(to); ms < end; ms += DAY_MS) out.push(msToDay(ms));
  return out;
}

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 for a 'YYYY-MM-DD' UTC day; throws on anything that is not a real calendar day. */
export function dayNumber(day: string): number {
  const m = DAY_RE.exec(day);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) {
    throw new InternalError(`not a calendar day (YYYY-MM-DD): ${JSON.stringify(day)}`, { day });
  }
  return ms / MS_PER_DAY;
}
