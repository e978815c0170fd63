import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses `500ms`, `4s`, `10m`, `1h`, `2d` (a bare number is seconds). Throws UsageError. */
export function parseDuration(text: string, what = 'duration'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) {
    throw new UsageError(
      `${what} "${text}" is not a duration: use a number with a unit, e.g. 500ms, 30s, 10m, 1h or 2d`,
      { what, value: text },
    );
  }
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 1_000);
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(`${what} "${text}" must be greater than zero`, { what, value: text });
  }
  return Math.round(ms);
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
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  const limit = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(limit) || limit < 1) {
    throw new UsageError(
      `--rate-limit "${text}" is not N/DURATION: use e.g. 100/1h (the service's limit), 40/4s or 1000/10m`,
      { value: text },
    );
  }
  const windowMs = Number(m[2]) * (UNIT_MS[m[3] ?? 's'] ?? 1_000);
  if (!(windowMs > 0)) {
    throw new UsageError(`--rate-limit "${text}": the window must be longer than zero`, { value: text });
  }
  return { limit, windowMs: Math.round(windowMs), text: text.trim() };
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
