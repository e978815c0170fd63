import { describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/emulator/index.js';
import { ISO_WEEKS, MONTHS, type Grid } from '../../src/extract/range-plan.js';
import { addDays, dayRange } from '../../src/util/day.js';

const ds = buildDataset({ seed: 13, days: 120, paths: 300, today: '2026-11-23' });

function periods(grid: Grid): [string, string][] {
  const out: [string, string][] = [];
  const first = ds.days[0] ?? ds.today;
  for (let s = grid.next(grid.start(first)); grid.next(s) <= ds.today; s = grid.next(s))
    out.push([s, grid.next(s)]);
  return out;
}

type Counts = { human: number; ai: number; total: number };

/** Real period uniques: at least the busiest day, at most the sum of the days, total <= human + ai. */
function expectPeriodUniques(period: Counts, days: readonly Counts[]): void {
  for (const k of ['human', 'ai', 'total'] as const) {
    expect(period[k]).toBeGreaterThanOrEqual(Math.max(0, ...days.map((d) => d[k])));
    expect(period[k]).toBeLessThanOrEqual(days.reduce((n, d) => n + d[k], 0));
  }
  expect(period.total).toBeLessThanOrEqual(period.human + period.ai);
}

describe('the emulator answers a week or a month window with period uniques that behave like real ones', () => {
  for (const [name, grid] of [
    ['ISO weeks', ISO_WEEKS],
    ['calendar months', MONTHS],
  ] as const) {
    it(`${name}: the site and every path between the busiest day and the sum of the days`, () => {
      const ps = periods(grid);
      expect(ps.length).toBeGreaterThan(2);
      for (const [s, e] of ps) {
        const days = dayRange(s, e);
        const q = ds.query(s, e);
        expectPeriodUniques(
          q.totals,
          days.map((d) => ds.site(d)),
        );
        // A reader on two days of the period counts once: the period is below its visitor-days.
        expect(q.totals.total).toBeLessThan(days.reduce((n, d) => n + ds.site(d).total, 0));
        const byDay = days.map((d) => new Map(ds.pages(d).map((r) => [r.path, r])));
        for (const row of q.rows) {
          const seen = byDay.flatMap((m) => {
            const r = m.get(row.path);
            return r ? [r] : [];
          });
          expectPeriodUniques(row, seen);
        }
      }
    });
  }

  it('is deterministic: the same week asked twice gives the same figures', () => {
    const [s, e] = periods(ISO_WEEKS)[0] ?? ['', ''];
    expect(ds.query(s, e)).toEqual(
      buildDataset({ seed: 13, days: 120, paths: 300, today: '2026-11-23' }).query(s, e),
    );
    expect(addDays(s, 7)).toBe(e);
  });
});
