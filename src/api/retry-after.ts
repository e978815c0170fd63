/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3): either delta-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). Returns the wait in milliseconds, or `undefined` when the
 * header gives no usable hint: missing, unparsable, `0`, negative, or a date that is already past.
 * Treating those as "no hint" (rather than "wait 0") is what keeps a misbehaving server from
 * driving us into a zero-delay retry loop; the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;

  if (/^[+-]?\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds * 1_000) : undefined;
  }

  // Only date-shaped text goes to Date.parse: it happily turns strings like "5 x" into a date.
  if (!/^[A-Za-z]{3,9},? /.test(text) || !/\d{1,2}:\d{2}:\d{2}/.test(text)) return undefined;
  // The asctime form carries no zone; HTTP dates are always GMT, never local time.
  const zoned = /\b(GMT|UTC|Z)\b|[+-]\d{4}$/.test(text) ? text : `${text} GMT`;
  const at = Date.parse(zoned);
  if (!Number.isFinite(at)) return undefined;
  const wait = at - nowMs;
  return wait > 0 ? wait : undefined;
}
