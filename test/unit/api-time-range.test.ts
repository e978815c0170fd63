import { describe, expect, it } from 'vitest';
import { readApiTime, shortValue } from '../../src/util/time.js';

describe('a time from the API is read by one rule, [2000-01-01, 2200-01-01) UTC', () => {
  it('accepts the first instant of 2000 and the last millisecond before 2200, in UTC', () => {
    expect(readApiTime('2000-01-01T00:00:00Z')).toEqual({ iso: '2000-01-01T00:00:00.000Z' });
    expect(readApiTime('2199-12-31T23:59:59.999Z')).toEqual({ iso: '2199-12-31T23:59:59.999Z' });
    expect(readApiTime('2000-01-01T01:00:00+01:00')).toEqual({ iso: '2000-01-01T00:00:00.000Z' });
  });

  it('refuses year -1, the last millisecond of 1999, 2200 itself and Date’s own limit', () => {
    for (const t of [
      '-000001-01-01T00:00:00Z',
      '1999-12-31T23:59:59.999Z',
      '2000-01-01T00:30:00+01:00',
      '2200-01-01T00:00:00Z',
      '+275760-09-13T00:00:00Z',
    ])
      expect(readApiTime(t)).toEqual({ outOfRange: t });
  });

  it('gives null, not a refusal, for no time or text that is no time', () => {
    expect(readApiTime(null)).toEqual({ iso: null });
    expect(readApiTime('soon')).toEqual({ iso: null });
  });

  it('shows a refused value quoted and cut to 40 characters', () => {
    expect(shortValue('-000001-01-01T00:00:00Z')).toBe('"-000001-01-01T00:00:00Z"');
    expect(shortValue(`2026-01-01T00:00:00Z${'x'.repeat(100)}`)).toBe(
      `"2026-01-01T00:00:00Zxxxxxxxxxxxxxxxxx..."`,
    );
  });
});
