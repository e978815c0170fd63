import { describe, expect, it } from 'vitest';
import { addDays, dayRange, parseDay } from '../../src/util/day.js';
import { parseDuration, parseRateLimit } from '../../src/util/duration.js';

describe('UTC days', () => {
  it('refuses impossible calendar days such as 2026-02-30', () => {
    expect(() => parseDay('2026-02-30', '--from')).toThrow(/not a real calendar day/);
    expect(() => parseDay('2026/02/01', '--from')).toThrow(/use YYYY-MM-DD/);
    expect(parseDay('2028-02-29', '--from')).toBe('2028-02-29');
  });

  it('steps over month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(dayRange('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });
});

describe('durations and rate limits', () => {
  it('parses N/DURATION budgets', () => {
    expect(parseRateLimit('100/1h')).toMatchObject({ limit: 100, windowMs: 3_600_000 });
    expect(parseRateLimit('40/4s')).toMatchObject({ limit: 40, windowMs: 4_000 });
    expect(parseRateLimit('1000/10m')).toMatchObject({ limit: 1000, windowMs: 600_000 });
  });

  it.each([
    '100',
    '100/',
    '/1h',
    '0/1h',
    '-1/1h',
    '100/0s',
    '100/1y',
    'a/b',
    '1.5/1h',
    '100/0.4ms',
    '0100/1h',
    '100 / 1h',
    '100/1 h',
    '100/1e3s',
    '100/30d',
    '100/3600',
  ])('refuses the budget %j as a usage error', (text) => {
    expect(() => parseRateLimit(text)).toThrow(/--rate-limit/);
  });

  it('parses durations with units and refuses zero or garbage', () => {
    expect(parseDuration('50m')).toBe(3_000_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration(' 10m ')).toBe(600_000);
    expect(parseDuration('1.5s')).toBe(1_500);
    expect(() => parseDuration('0s')).toThrow(/must be at least 1ms/);
    expect(() => parseDuration('0.4ms', '--max-wait')).toThrow('--max-wait "0.4ms" must be at least 1ms');
    expect(() => parseDuration('25d', '--max-wait')).toThrow('--max-wait "25d" must be at most 24d');
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
    expect(() => parseDuration('10 m')).toThrow(/not a duration/);
    expect(() => parseDuration('0x10s')).toThrow(/not a duration/);
  });

  it.each(['50', '0.5', ' 10 '])('refuses the bare number %j: a duration names its unit', (text) => {
    expect(() => parseDuration(text, '--max-duration')).toThrow(
      /--max-duration ".*" has no unit: write it with one, e\.g\. \d/,
    );
  });

  it('accepts surrounding white space in a budget and keeps the trimmed text', () => {
    expect(parseRateLimit(' 100/1h\n')).toEqual({ limit: 100, windowMs: 3_600_000, text: '100/1h' });
  });
});
