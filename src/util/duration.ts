import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Timers cannot wait longer than this (Node fires a longer setTimeout after 1 ms). */
const MAX_MS = 2 ** 31 - 1;

/**
 * A number with a unit, nothing around or inside it but the surrounding white space a shell
 * or an env file may leave: `10 m`, `1e3s` or `0x10s` are refused rather than guessed at.
 */
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Milliseconds of a number and a unit, rounded; refused when that is under 1 ms (a zero wait
 * or window would spin) or beyond what a timer can wait (about 24.8 days).
 */
function toMs(amount: string, unit: string, fail: (why: string) => UsageError): number {
  const ms = Math.round(Number(amount) * (UNIT_MS[unit] ?? 1_000));
  if (!Number.isFinite(ms) || ms < 1) throw fail('must be at least 1ms');
  if (ms > MAX_MS) throw fail('must be at most 24d');
  return ms;
}

/**
 * Parses `500ms`, `4s`, `10m`, `1h`, `2d`. A bare number is refused rather than read as seconds:
 * `--max-duration 50` meant as minutes would stop a run after 50 s.
 */
export function parseDuration(text: string, what = 'duration'): number {
  const m = DURATION.exec(text.trim());
  if (!m) {
    throw new UsageError(
      `${what} "${text}" is not a duration: use a number with a unit, e.g. 500ms, 30s, 10m, 1h or 2d`,
      { what, value: text },
    );
  }
  const unit = m[2];
  if (unit === undefined) {
    throw new UsageError(
      `${what} "${text}" has no unit: write it with one, e.g. ${text.trim()}m (ms, s, m, h or d)`,
      { what, value: text },
    );
  }
  return toMs(
    m[1] as string,
    unit,
    (why) => new UsageError(`${what} "${text}" ${why}`, { what, value: text }),
  );
}

export interface RateLimitSpec {
  /** Requests allowed in any window of `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
  /** The text it was parsed from, for messages. */
  readonly text: string;
}

/** Parses `N/DURATION`: `100/1h`, `40/4s`, `1000/10m`. Anything else is a UsageError. */
export function parseRateLimit(text: string): RateLimitSpec {
  // The count without leading zeros, the window with its unit: 100/1h, never 0100/1h or 100 / 1h.
  const m = /^([1-9]\d*)\/(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  const limit = m ? Number(m[1]) : NaN;
  if (/^0+\/\d/.test(text.trim())) {
    throw new UsageError(
      `--rate-limit "${text}": the count must be at least 1 (no request could ever start): use e.g. 100/1h, the service's limit`,
      { value: text },
    );
  }
  if (!m || !Number.isSafeInteger(limit)) {
    throw new UsageError(
      `--rate-limit "${text}" is not N/DURATION: use e.g. 100/1h (the service's limit), 40/4s or 1000/10m`,
      { value: text },
    );
  }
  const windowMs = toMs(
    m[2] as string,
    m[3] as string,
    (why) => new UsageError(`--rate-limit "${text}": the window ${why}`, { value: text }),
  );
  return { limit, windowMs, text: text.trim() };
}

/** Human form of a duration in ms: 950ms, 12s, 3m 20s, 1h 05m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '∞';
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, '0')}m`;
}
