import { describe, expect, it, vi } from 'vitest';
import type { Dataset, PageRow, Totals } from '../../src/emulator/index.js';
import {
  addDays,
  buildDataset,
  CASE_PAIR,
  EDGE_DAY_OFFSETS,
  FAULT_KINDS,
  FaultInjector,
  groundTruth,
  isFailingFault,
  MAX_CONSECUTIVE_FAILURES,
  ODD_PATHS,
  parseApiDate,
  SlidingWindowLimiter,
} from '../../src/emulator/index.js';

const TODAY = '2025-03-15';
// Built once: 600 paths so the 500-row day is not capped.
const big = buildDataset({ seed: 7, days: 60, paths: 600, today: TODAY });
const small = buildDataset({ seed: 7, days: 60, paths: 300, today: TODAY });

function allDays(d: Dataset): string[] {
  return [...d.days, d.today];
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function dedupOk(t: Totals): boolean {
  return Math.max(t.human, t.ai) <= t.total && t.total <= t.human + t.ai;
}

function orderedByTotalThenPath(rows: readonly PageRow[]): boolean {
  return rows.every((r, i) => {
    const prev = rows[i - 1];
    if (!prev) return true;
    return prev.total > r.total || (prev.total === r.total && prev.path < r.path);
  });
}

describe('buildDataset', () => {
  it('gives the same pages and totals for the same seed, and other data for another seed', () => {
    const again = groundTruth({ seed: 7, days: 60, paths: 600, today: TODAY });
    const snapshot = (d: Dataset) => JSON.stringify(allDays(d).map((day) => [d.site(day), d.pages(day)]));
    expect(snapshot(again)).toBe(snapshot(big));
    const other = buildDataset({ seed: 8, days: 60, paths: 600, today: TODAY });
    const day = big.days[30] ?? '';
    expect(other.pages(day)).not.toEqual(big.pages(day));
  });

  it('keeps a day the same when the dataset is built on a later day, edge days aside', () => {
    const later = buildDataset({ seed: 7, days: 60, paths: 600, today: addDays(TODAY, 1) });
    const edge = new Set(Object.values(big.edgeDays));
    const laterEdge = new Set(Object.values(later.edgeDays));
    const day = big.days.find((d) => !edge.has(d) && !laterEdge.has(d) && d > later.days[0]!) ?? '';
    expect(later.pages(day)).toEqual(big.pages(day));
  });

  it('covers `days` full days ascending and ending yesterday, with today kept apart', () => {
    expect(big.days).toHaveLength(60);
    expect(big.days.at(-1)).toBe('2025-03-14');
    expect(big.days[0]).toBe('2025-01-14');
    expect([...big.days].sort()).toEqual(big.days);
    expect(big.today).toBe(TODAY);
    expect(big.days).not.toContain(TODAY);
  });

  it('serves partial data for today: fewer visitors than any ordinary weekday', () => {
    const todayTotal = big.site(TODAY).total;
    expect(todayTotal).toBeGreaterThan(0);
    const weekdays = big.days.filter((d) => {
      const wd = new Date(`${d}T00:00:00Z`).getUTCDay();
      return wd >= 1 && wd <= 4 && !Object.values(big.edgeDays).includes(d);
    });
    expect(Math.min(...weekdays.map((d) => big.site(d).total))).toBeGreaterThan(todayTotal);
  });

  it('answers zero totals and no rows for days outside its range', () => {
    for (const day of [addDays(big.days[0]!, -1), addDays(TODAY, 1), '1999-01-01']) {
      expect(big.site(day)).toEqual({ human: 0, ai: 0, total: 0 });
      expect(big.pages(day)).toEqual([]);
    }
  });

  it('orders every day by total descending, then path by JS string comparison', () => {
    for (const day of allDays(big)) expect(orderedByTotalThenPath(big.pages(day))).toBe(true);
  });

  it('has rows that tie on total, so the path order decides', () => {
    const rows = big.pages(big.edgeDays.rows251);
    const ties = rows.filter((r, i) => rows[i + 1]?.total === r.total).length;
    expect(ties).toBeGreaterThan(10);
  });

  it('lists no path twice a day and never a row with total 0', () => {
    for (const day of allDays(big)) {
      const rows = big.pages(day);
      expect(new Set(rows.map((r) => r.path)).size).toBe(rows.length);
      expect(rows.every((r) => r.total > 0)).toBe(true);
    }
  });

  it('keeps every row de-duplicated: non-negative integers with max(human, ai) <= total <= human + ai', () => {
    const broken = allDays(big).flatMap((day) =>
      big.pages(day).filter((r) => ![r.human, r.ai, r.total].every(isCount) || !dedupOk(r)),
    );
    expect(broken).toEqual([]);
  });

  it('keeps site totals de-duplicated, at least the busiest page and below the sum of page totals', () => {
    for (const day of allDays(big)) {
      const site = big.site(day);
      const rows = big.pages(day);
      expect([site.human, site.ai, site.total].every(isCount)).toBe(true);
      expect(dedupOk(site)).toBe(true);
      if (rows.length === 0) continue;
      expect(site.total).toBeGreaterThanOrEqual(Math.max(...rows.map((r) => r.total)));
      expect(site.total).toBeLessThan(rows.reduce((s, r) => s + r.total, 0));
    }
  });

  it('has a long tail: some catalogue paths go unvisited on ordinary days, and the top page dominates', () => {
    const day = small.days[40] ?? '';
    const rows = small.pages(day);
    expect(rows.length).toBeLessThan(300);
    expect(rows.length).toBeGreaterThan(100);
    expect(rows[0]!.total).toBeGreaterThan(20 * rows.at(-1)!.total);
  });

  it('places the edge days at fixed offsets before today', () => {
    expect(big.edgeDays).toEqual({
      empty: addDays(TODAY, -EDGE_DAY_OFFSETS.empty),
      rows250: addDays(TODAY, -EDGE_DAY_OFFSETS.rows250),
      rows251: addDays(TODAY, -EDGE_DAY_OFFSETS.rows251),
      rows500: addDays(TODAY, -EDGE_DAY_OFFSETS.rows500),
    });
    expect(EDGE_DAY_OFFSETS).toEqual({ rows251: 6, rows250: 10, empty: 14, rows500: 21 });
  });

  it('has edge days of exactly 0, 250, 251 and 500 rows', () => {
    expect(big.pages(big.edgeDays.empty)).toHaveLength(0);
    expect(big.site(big.edgeDays.empty)).toEqual({ human: 0, ai: 0, total: 0 });
    expect(big.pages(big.edgeDays.rows250)).toHaveLength(250);
    expect(big.pages(big.edgeDays.rows251)).toHaveLength(251);
    expect(big.pages(big.edgeDays.rows500)).toHaveLength(500);
  });

  it('caps the 500-row day at the catalogue size when paths is smaller', () => {
    expect(small.pages(small.edgeDays.rows500)).toHaveLength(300);
    expect(small.pages(small.edgeDays.rows251)).toHaveLength(251);
  });

  it('puts every odd path on every edge day with rows and on every other non-empty day', () => {
    for (const day of allDays(big)) {
      if (day === big.edgeDays.empty) continue;
      const paths = new Set(big.pages(day).map((r) => r.path));
      for (const odd of ODD_PATHS) expect(paths.has(odd), `${odd} on ${day}`).toBe(true);
    }
  });

  it('includes unicode, quotes, a space, ?, %, a backslash and a case pair among its paths', () => {
    expect(ODD_PATHS).toEqual(
      expect.arrayContaining([
        '/docs/café-☕',
        '/docs/日本語/ガイド',
        "/docs/it's-quoted",
        '/docs/say-"hello"',
        '/docs/with space',
        '/docs/what?x=1',
        '/docs/100%25-off',
        '/docs/back\\slash',
        '/docs/API',
        '/docs/api',
      ]),
    );
  });

  it('lists both paths of the case pair as separate rows, tied on edge days with API before api', () => {
    const rows = big.pages(big.edgeDays.rows251);
    const upper = rows.findIndex((r) => r.path === CASE_PAIR.upper);
    const lower = rows.findIndex((r) => r.path === CASE_PAIR.lower);
    expect(upper).toBeGreaterThanOrEqual(0);
    expect(lower).toBe(upper + 1);
    expect(rows[upper]!.total).toBe(rows[lower]!.total);
  });

  it('returns copies, so editing an answer cannot change the ground truth', () => {
    const day = big.days[5] ?? '';
    const rows = big.pages(day);
    (rows[0] as { total: number }).total = -1;
    rows.length = 0;
    expect(big.pages(day)[0]!.total).toBeGreaterThan(0);
  });

  it('moves the edge days nearer to today, still distinct, when there are fewer days than offsets', () => {
    const tiny = buildDataset({ seed: 1, days: 5, paths: 600, today: TODAY });
    const placed = Object.values(tiny.edgeDays);
    expect(new Set(placed).size).toBe(4);
    for (const d of placed) expect(tiny.days).toContain(d);
    expect(tiny.pages(tiny.edgeDays.rows251)).toHaveLength(251);
    expect(tiny.pages(tiny.edgeDays.empty)).toHaveLength(0);
  });

  it('refuses fewer than 4 days or no paths with a RangeError', () => {
    expect(() => buildDataset({ seed: 1, days: 3, paths: 10 })).toThrow(RangeError);
    expect(() => buildDataset({ seed: 1, days: 10, paths: 0 })).toThrow(RangeError);
    expect(() => buildDataset({ seed: 1, days: 10, paths: 10, today: '2025-02-30' })).toThrow(RangeError);
  });

  it('defaults the project id to proj_demo and today to the current UTC day', () => {
    // A clock pinned a second before a UTC midnight: the day must be the clock's, not the machine's.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2031-05-17T23:59:59Z') });
    try {
      const d = buildDataset({ seed: 1, days: 4, paths: 20 });
      expect(d.projectId).toBe('proj_demo');
      expect(d.today).toBe('2031-05-17');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Dataset.query', () => {
  it('answers a single day with exactly that day', () => {
    const day = big.edgeDays.rows251;
    expect(big.query(day, addDays(day, 1))).toEqual({ totals: big.site(day), rows: big.pages(day) });
  });

  it('de-duplicates several days rather than summing them, deterministically', () => {
    const from = big.days[10]!;
    const to = big.days[17]!;
    const q = big.query(from, to);
    expect(big.query(from, to)).toEqual(q);
    const days = big.days.slice(10, 17);
    const summed = days.reduce((s, d) => s + big.site(d).total, 0);
    expect(q.totals.total).toBeLessThan(summed);
    expect(q.totals.total).toBeGreaterThan(Math.max(...days.map((d) => big.site(d).total)));
    const top = q.rows[0]!;
    const topSum = days.reduce((s, d) => s + (big.pages(d).find((r) => r.path === top.path)?.total ?? 0), 0);
    expect(top.total).toBeLessThan(topSum);
  });

  it('keeps the invariants and the order over a multi-day range', () => {
    const q = big.query(big.days[0]!, addDays(TODAY, 1));
    expect(orderedByTotalThenPath(q.rows)).toBe(true);
    expect(q.rows.every((r) => dedupOk(r) && [r.human, r.ai, r.total].every(isCount))).toBe(true);
    expect(dedupOk(q.totals)).toBe(true);
    expect(q.totals.total).toBeGreaterThanOrEqual(q.rows[0]!.total);
    expect(q.totals.total).toBeLessThan(q.rows.reduce((s, r) => s + r.total, 0));
  });

  it('lists every path seen on any day of the range once', () => {
    const from = big.days[40]!;
    const to = big.days[50]!;
    const seen = new Set(big.days.slice(40, 50).flatMap((d) => big.pages(d).map((r) => r.path)));
    const q = big.query(from, to);
    expect(q.rows).toHaveLength(seen.size);
    expect(new Set(q.rows.map((r) => r.path))).toEqual(seen);
  });

  it('ignores the part of a range outside the dataset and answers nothing for an empty range', () => {
    const first = big.days[0]!;
    expect(big.query('2000-01-01', addDays(first, 1))).toEqual(big.query(first, addDays(first, 1)));
    expect(big.query('2000-01-01', '2000-02-01')).toEqual({
      totals: { human: 0, ai: 0, total: 0 },
      rows: [],
    });
    expect(big.query(big.edgeDays.empty, addDays(big.edgeDays.empty, 1)).rows).toEqual([]);
  });
});

describe('parseApiDate', () => {
  it('accepts YYYY-MM-DD and ISO 8601 date-times, answering the UTC day', () => {
    expect(parseApiDate('2024-01-01')).toBe('2024-01-01');
    expect(parseApiDate('2024-01-01T23:30:00Z')).toBe('2024-01-01');
    expect(parseApiDate('2024-01-01T23:30:00.123456Z')).toBe('2024-01-01');
    expect(parseApiDate('2024-01-01T23:30:00-02:00')).toBe('2024-01-02');
    expect(parseApiDate('2024-01-01T01:00+0200')).toBe('2023-12-31');
    expect(parseApiDate('2024-01-01T12:00:00')).toBe('2024-01-01');
  });

  it('refuses text that is not a real date', () => {
    for (const bad of [
      'nope',
      '',
      '2024-02-30',
      '2024-13-01',
      '20240101',
      '2024-01-01T25:00:00Z',
      '2024-1-1',
    ]) {
      expect(parseApiDate(bad), bad).toBeUndefined();
    }
  });
});

describe('SlidingWindowLimiter', () => {
  it('refuses the request after N in a window and lets one through once the oldest ages out', () => {
    const limiter = new SlidingWindowLimiter('2/1s');
    expect([limiter.hit(0), limiter.hit(100), limiter.hit(200)]).toEqual([true, true, false]);
    // The refused request at 200 counts too: at 1000 only the one at 0 has aged out.
    expect(limiter.hit(1000)).toBe(false);
    expect(limiter.hit(1200)).toBe(true);
  });
});

describe('FaultInjector', () => {
  it('never injects more than 3 failing faults in a row for one request', () => {
    const injector = new FaultInjector({ probability: 1, seed: 3 });
    let streak = 0;
    let longest = 0;
    for (let i = 0; i < 2_000; i++) {
      const fault = injector.next('GET /same');
      streak = isFailingFault(fault) ? streak + 1 : 0;
      longest = Math.max(longest, streak);
    }
    expect(longest).toBe(MAX_CONSECUTIVE_FAILURES);
  });

  it('draws every kind over many attempts and nothing when the probability is 0', () => {
    const injector = new FaultInjector({ probability: 1, seed: 3 });
    const kinds = new Set(Array.from({ length: 500 }, (_, i) => injector.next(`GET /r${i}`)));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
    const never = new FaultInjector({ probability: 0, seed: 3 });
    expect(Array.from({ length: 100 }, () => never.next('GET /x')).every((f) => f === undefined)).toBe(true);
  });

  it('refuses a probability outside [0, 1]', () => {
    expect(() => new FaultInjector({ probability: 1.5, seed: 1 })).toThrow(RangeError);
  });
});
