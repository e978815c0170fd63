import { describe, expect, it } from 'vitest';
import { isoWeekOf, isoWeekStart } from '../../src/insights/digest.js';

describe('ISO weeks', () => {
  it('start on the Monday of the week that holds January 4th', () => {
    expect(isoWeekStart('2026-W01')).toBe('2025-12-29');
    expect(isoWeekStart('2026-W47')).toBe('2026-11-16');
    expect(isoWeekStart('2021-W01')).toBe('2021-01-04');
  });

  it('name the week of a day, across a year boundary', () => {
    expect(isoWeekOf('2026-11-22')).toBe('2026-W47');
    expect(isoWeekOf('2027-01-01')).toBe('2026-W53');
    expect(isoWeekOf('2021-01-03')).toBe('2020-W53');
  });

  it('refuses a week a year does not have', () => {
    expect(() => isoWeekStart('2025-W53')).toThrow('--week "2025-W53": 2025 has no week 53');
  });
});
