import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoUtc } from '../../src/util/time.js';

// A machine zone that is not UTC, so a time read in local time would show (Node reads TZ anew).
const zone = process.env['TZ'];
beforeAll(() => {
  process.env['TZ'] = 'Europe/Berlin';
});
afterAll(() => {
  if (zone === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zone;
});

describe('event times as the loader stores them', () => {
  it('keeps an instant with a zone, in UTC with milliseconds', () => {
    expect(isoUtc('2026-11-03T10:00:00Z')).toBe('2026-11-03T10:00:00.000Z');
    expect(isoUtc('2026-11-03T12:00:00.250+02:00')).toBe('2026-11-03T10:00:00.250Z');
  });

  it("reads a time without a zone as UTC (the service's), whatever this machine's zone", () => {
    expect(isoUtc('2026-11-03T10:00')).toBe('2026-11-03T10:00:00.000Z');
    expect(isoUtc('2026-11-03 10:00:00.5')).toBe('2026-11-03T10:00:00.500Z');
  });

  it('gives null for no time', () => {
    expect(isoUtc(null)).toBeNull();
  });
});

describe('event times finer than a millisecond', () => {
  it('keep their microseconds, so two turns microseconds apart stay two', () => {
    expect(isoUtc('2026-11-03T10:00:00.000123Z')).toBe('2026-11-03T10:00:00.000123Z');
    expect(isoUtc('2026-11-03T12:00:00.000456+02:00')).toBe('2026-11-03T10:00:00.000456Z');
    expect(isoUtc('2026-11-03T10:00:00.1234Z')).toBe('2026-11-03T10:00:00.123400Z');
  });
});
