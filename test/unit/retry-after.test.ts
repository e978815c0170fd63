import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/api/retry-after.js';

const NOW = Date.parse('2025-03-10T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 1 ', NOW)).toBe(1_000);
  });

  it('reads an IMF-fixdate HTTP date as the time left until it', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 12:00:30 GMT', NOW)).toBe(30_000);
  });

  it('reads the obsolete RFC 850 and asctime date forms as GMT', () => {
    expect(parseRetryAfter('Monday, 10-Mar-25 12:01:00 GMT', NOW)).toBe(60_000);
    expect(parseRetryAfter('Mon Mar 10 12:00:05 2025', NOW)).toBe(5_000);
  });

  it('gives no hint for 0, a negative number, garbage, an empty or missing header', () => {
    for (const value of ['0', '-5', 'garbage', '', '   ', 'soon', '5 minutes', undefined, null]) {
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
    }
  });

  it('gives no hint for a date in the past or exactly now', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 11:59:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Mon, 10 Mar 2025 12:00:00 GMT', NOW)).toBeUndefined();
  });

  it('rounds fractional seconds up so a tiny hint never becomes zero', () => {
    expect(parseRetryAfter('0.0001', NOW)).toBe(1);
  });
});
