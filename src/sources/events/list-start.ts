/**
 * Where the listing of one group of keys starts (a group: the keys under one sub-prefix of the
 * source; src/pipeline/event-listing.ts makes the groups). Within a group, objects are named from
 * UTC timestamps, so keys sort in time; a run lists the group from its newest loaded key minus a
 * lookback, so an object delivered late (named up to the lookback before the newest loaded one) is
 * still listed, and the ledger tells which listed keys are new.
 */

export const DEFAULT_LOOKBACK_MS = 2 * 86_400_000;

/**
 * A key named later than this after the run's clock is a sender's clock gone wrong: it moves no
 * start (treated as untimed), or one key named in 2199 would hide every later key named in time.
 */
export const FUTURE_MARGIN_MS = 86_400_000;

/**
 * `2026-11-27T08:15:00Z`, `...00.250Z`, `2026-11-27T08-15-00`, `20261127T081500Z` (date, a `T`,
 * `_` or space, hours, minutes, optional seconds and fraction); or path parts `2026/11/27[/08]`.
 */
const STAMP =
  /(\d{4})-?(\d{2})-?(\d{2})[T_ ](\d{2})[:-]?(\d{2})(?:[:-]?(\d{2})(?:\.(\d{1,9}))?)?|(\d{4})\/(\d{2})\/(\d{2})(?:\/(\d{2})(?=\/|$))?/g;

function utc(y: string, mo: string, d: string, h = '0', mi = '0', s = '0', frac = ''): number | undefined {
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, Number(frac.slice(0, 3).padEnd(3, '0')));
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** The time a key is named from (its last readable timestamp), in ms; undefined when none. */
export function keyTime(key: string): number | undefined {
  let found: number | undefined;
  for (const m of key.matchAll(STAMP)) {
    const ms =
      m[1] !== undefined
        ? utc(m[1], m[2]!, m[3]!, m[4], m[5], m[6], m[7])
        : utc(m[8]!, m[9]!, m[10]!, m[11] ?? '0');
    if (ms !== undefined) found = ms;
  }
  return found;
}

/** S3's order: UTF-8 bytes. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * The key to list after: the largest loaded key whose time is more than `lookbackMs` before the
 * newest loaded key's time (strictly: a late key named exactly the lookback before the newest
 * may sort before a loaded key of the same time, and must still be listed). Undefined (list
 * everything) when nothing is loaded, no key has a time, or every timed key is within the lookback.
 * A key named more than FUTURE_MARGIN_MS after `now` counts as untimed.
 */
export function listStart(
  loadedKeys: readonly string[],
  lookbackMs = DEFAULT_LOOKBACK_MS,
  now = Infinity,
): string | undefined {
  const timed = loadedKeys.flatMap((key) => {
    const ms = keyTime(key);
    return ms === undefined || ms > now + FUTURE_MARGIN_MS ? [] : [{ key, ms }];
  });
  if (timed.length === 0) return undefined;
  const threshold = timed.reduce((max, k) => Math.max(max, k.ms), -Infinity) - lookbackMs;
  let start: string | undefined;
  for (const { key, ms } of timed) {
    if (ms < threshold && (start === undefined || compareKeys(key, start) > 0)) start = key;
  }
  return start;
}
