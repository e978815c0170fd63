import { describe, expect, it } from 'vitest';
import { ISO_WEEKS, MONTHS, planRanges, type RangePlanSpec } from '../../src/extract/range-plan.js';
import { mergePlans, planProject, type ProjectState } from '../../src/extract/plan.js';

// A Saturday: the week of 2026-11-16 (Monday) is still running.
const today = '2026-11-21';
const empty: ProjectState = { loadedDays: [], partialDays: [], deferredDays: [] };
const base = { today, lookback: 3, includeToday: false };
const events: RangePlanSpec = { stream: 'assistant', grid: ISO_WEEKS, kind: 'events' };
const months: RangePlanSpec = { stream: 'feedback', grid: MONTHS, kind: 'events', lookback: 30 };
const weeks: RangePlanSpec = { stream: 'visitors_weekly', grid: ISO_WEEKS, kind: 'periods' };

const at = (iso: string): number => Date.parse(iso);

/** A state where each [start, end) was loaded by a fetch at the given instant. */
function loaded(windows: readonly [string, string, string][]): ProjectState {
  return {
    ...empty,
    loadedDays: windows.map(([s]) => s),
    windowEnds: new Map(windows.map(([s, e]) => [s, e])),
    fetchedAt: new Map(windows.map(([s, , f]) => [s, at(f)])),
  };
}

describe('the calendar grids of range windows', () => {
  it('puts every day in one ISO week starting on a Monday, and one calendar month', () => {
    expect(ISO_WEEKS.start('2026-11-16')).toBe('2026-11-16');
    expect(ISO_WEEKS.start('2026-11-22')).toBe('2026-11-16');
    expect(ISO_WEEKS.start('2027-01-01')).toBe('2026-12-28');
    expect(ISO_WEEKS.next('2026-12-28')).toBe('2027-01-04');
    expect(MONTHS.start('2028-02-29')).toBe('2028-02-01');
    expect(MONTHS.next('2028-02-01')).toBe('2028-03-01');
    expect(MONTHS.next('2026-12-01')).toBe('2027-01-01');
  });
});

describe('planning event ranges', () => {
  it('covers the last 30 days on an empty database with whole weeks, the running week up to today', () => {
    const p = planRanges('p', empty, base, events);
    expect(p.windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-10-19', '2026-10-26'],
      ['2026-10-26', '2026-11-02'],
      ['2026-11-02', '2026-11-09'],
      ['2026-11-09', '2026-11-16'],
      ['2026-11-16', '2026-11-21'],
    ]);
    expect(p.windows.every((w) => w.reason === 'initial' && !w.partial)).toBe(true);
  });

  it('reads every cell --from/--to touches whole, the running one up to today, never cut at --to', () => {
    const p = planRanges('p', empty, { ...base, from: '2026-10-01', to: '2026-11-05' }, months);
    expect(p.windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-10-01', '2026-11-01'],
      ['2026-11-01', '2026-11-21'],
    ]);
    const narrow = planRanges('p', empty, { ...base, from: '2026-10-10', to: '2026-10-13' }, months);
    expect(narrow.windows.map((w) => [w.day, w.dateTo, w.reason])).toEqual([
      ['2026-10-01', '2026-11-01', 'range'],
    ]);
    // The plan says how far it reads: past --to, to the end of the last cell.
    expect([narrow.from, narrow.to]).toEqual(['2026-10-01', '2026-11-01']);
    const weeksOf = planRanges('p', empty, { ...base, from: '2026-10-10', to: '2026-10-13' }, events);
    expect(weeksOf.windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-10-05', '2026-10-12'],
      ['2026-10-12', '2026-10-19'],
    ]);
    const today = planRanges(
      'p',
      empty,
      { ...base, from: '2026-11-18', to: '2026-11-19', includeToday: true },
      events,
    );
    expect(today.windows.map((w) => [w.day, w.dateTo, w.partial])).toEqual([
      ['2026-11-16', '2026-11-22', true],
    ]);
  });

  it('skips a settled whole cell that a narrower range touches, and re-reads a cell loaded only in part', () => {
    const state = loaded([
      ['2026-09-01', '2026-10-01', '2026-11-01T00:00:00Z'],
      ['2026-10-01', '2026-10-13', '2026-11-20T00:00:00Z'],
    ]);
    const sept = planRanges('p', state, { ...base, from: '2026-09-10', to: '2026-09-13' }, months);
    expect(sept.windows).toEqual([]);
    expect(sept.skipped.map((s) => s.day)).toEqual(['2026-09-01']);
    const oct = planRanges('p', state, { ...base, from: '2026-10-02', to: '2026-10-05' }, months);
    expect(oct.windows.map((w) => [w.day, w.dateTo])).toEqual([['2026-10-01', '2026-11-01']]);
  });

  it('extends a week loaded only up to some day, and takes today only with --include-today (partial)', () => {
    const state = loaded([['2026-11-16', '2026-11-20', '2026-11-20T02:00:00Z']]);
    const p = planRanges('p', state, base, events);
    expect(p.windows.map((w) => [w.day, w.dateTo, w.reason])).toEqual([
      ['2026-11-16', '2026-11-21', 'partial'],
    ]);
    const withToday = planRanges('p', state, { ...base, includeToday: true }, events);
    expect(withToday.windows[0]).toMatchObject({ dateTo: '2026-11-22', partial: true });
  });

  it('fetches a whole loaded week again until a fetch is made lookback days after it ended', () => {
    const fresh = loaded([['2026-11-09', '2026-11-16', '2026-11-17T02:00:00Z']]);
    expect(planRanges('p', fresh, base, events).windows.map((w) => [w.day, w.reason])).toEqual([
      ['2026-11-09', 'lookback'],
      ['2026-11-16', 'new'],
    ]);
    const settled = loaded([['2026-11-09', '2026-11-16', '2026-11-19T00:00:00Z']]);
    const p = planRanges('p', settled, base, events);
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-16']);
    expect(p.skipped.map((s) => s.day)).toEqual(['2026-11-09']);
    expect(planRanges('p', settled, { ...base, refresh: true }, events).windows.map((w) => w.day)).toEqual([
      '2026-11-09',
      '2026-11-16',
    ]);
  });

  it('re-reads feedback months for 30 days after they end (statuses change without a timestamp)', () => {
    const state = loaded([
      ['2026-09-01', '2026-10-01', '2026-10-31T00:00:00Z'],
      ['2026-10-01', '2026-11-01', '2026-11-20T00:00:00Z'],
      ['2026-11-01', '2026-11-20', '2026-11-20T00:00:00Z'],
    ]);
    const p = planRanges('p', state, base, months);
    expect(p.windows.map((w) => [w.day, w.dateTo, w.reason])).toEqual([
      ['2026-10-01', '2026-11-01', 'lookback'],
      ['2026-11-01', '2026-11-21', 'partial'],
    ]);
  });

  it('plans the gaps between loaded cells, and the deferred and failed ones', () => {
    const state: ProjectState = {
      ...loaded([
        ['2026-10-05', '2026-10-12', '2026-11-01T00:00:00Z'],
        ['2026-11-09', '2026-11-16', '2026-11-20T00:00:00Z'],
      ]),
      deferredDays: ['2026-10-19'],
    };
    const p = planRanges('p', state, base, events);
    expect(p.windows.map((w) => [w.day, w.reason])).toEqual([
      ['2026-10-12', 'gap'],
      ['2026-10-19', 'gap'],
      ['2026-10-26', 'gap'],
      ['2026-11-02', 'gap'],
      ['2026-11-16', 'new'],
    ]);
  });
});

describe('planning period windows (true uniques of a week or month)', () => {
  it('fetches a period only once it is complete and settled, whole', () => {
    // The week of 11-09 ended on 11-16; with a 3-day lookback it is final from 11-19.
    const p = planRanges('p', empty, { ...base, from: '2026-10-26' }, weeks);
    expect(p.windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-10-26', '2026-11-02'],
      ['2026-11-02', '2026-11-09'],
      ['2026-11-09', '2026-11-16'],
    ]);
    expect(p.windows.every((w) => !w.partial)).toBe(true);
  });

  it('takes the running period with --include-today, flagged partial, up to tomorrow', () => {
    const p = planRanges('p', empty, { ...base, from: '2026-11-09', includeToday: true }, weeks);
    expect(p.windows.map((w) => [w.day, w.dateTo, w.partial])).toEqual([
      ['2026-11-09', '2026-11-16', false],
      ['2026-11-16', '2026-11-22', true],
    ]);
  });

  it('spends nothing on a settled period when run again', () => {
    const state = loaded([['2026-11-02', '2026-11-09', '2026-11-13T00:00:00Z']]);
    const p = planRanges('p', state, base, weeks);
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-09']);
    const next = loaded([
      ['2026-11-02', '2026-11-09', '2026-11-13T00:00:00Z'],
      ['2026-11-09', '2026-11-16', '2026-11-21T00:00:00Z'],
    ]);
    expect(planRanges('p', next, base, weeks).windows).toEqual([]);
  });

  it('re-fetches a partial period the next run, whole once complete', () => {
    const state: ProjectState = {
      ...loaded([['2026-11-16', '2026-11-22', '2026-11-21T10:00:00Z']]),
      partialDays: ['2026-11-16'],
    };
    const later = { ...base, today: '2026-11-26' };
    expect(planRanges('p', state, later, weeks).windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-11-16', '2026-11-23'],
    ]);
  });
});

describe('range plans over a long history', () => {
  /** Every ISO week from 2025-12-29 up to 11-16, each fetched a week after it ended (final). */
  const settledHistory = (): ProjectState => {
    const weeks: [string, string, string][] = [];
    for (let s = '2025-12-29'; s < '2026-11-16'; s = ISO_WEEKS.next(s)) {
      const e = ISO_WEEKS.next(s);
      weeks.push([s, e, `${ISO_WEEKS.next(e)}T06:00:00Z`]);
    }
    return loaded(weeks);
  };

  it('lists no settled week as skipped but those near the newest, and plans only the new one', () => {
    const p = planRanges('p', settledHistory(), base, events);
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-16']);
    expect(p.skipped.length).toBeLessThanOrEqual(2);
  });

  it('does not go back every run for old weeks cut short by a page cap', () => {
    const st = { ...settledHistory(), truncatedDays: ['2026-01-05', '2026-03-02', '2026-11-09'] };
    expect(planRanges('p', st, base, events).windows.map((w) => w.day)).toEqual(['2026-11-09', '2026-11-16']);
  });

  it('re-reads with --refresh only the recent assistant weeks, but every feedback month', () => {
    const weeks = planRanges('p', settledHistory(), { ...base, refresh: true }, events);
    expect(weeks.windows.map((w) => w.day)).toEqual(['2026-11-09', '2026-11-16']);
    const monthsLoaded = loaded([
      ['2026-01-01', '2026-02-01', '2026-04-01T00:00:00Z'],
      ['2026-02-01', '2026-03-01', '2026-04-01T00:00:00Z'],
      ['2026-11-01', '2026-11-21', '2026-11-21T00:00:00Z'],
    ]);
    const fb = planRanges('p', monthsLoaded, { ...base, refresh: true }, { ...months, refreshAll: true });
    expect(fb.windows.map((w) => w.day)).toEqual([
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
      '2026-05-01',
      '2026-06-01',
      '2026-07-01',
      '2026-08-01',
      '2026-09-01',
      '2026-10-01',
      '2026-11-01',
    ]);
  });
});

describe('the order of a run with range windows', () => {
  it('puts the running month and week with the newest days, so a short budget still reaches them', () => {
    const days = planProject('p', empty, base, 'visitors');
    const fb = planRanges('p', empty, base, months);
    const order = mergePlans([days, fb], ['visitors', 'feedback']);
    const firstFeedback = order.findIndex((w) => w.stream === 'feedback');
    expect(order[firstFeedback]).toMatchObject({ day: '2026-11-01', dateTo: '2026-11-21' });
    // Yesterday's visitors, then the month that holds yesterday.
    expect(firstFeedback).toBe(1);
  });
});
