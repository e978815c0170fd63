import { describe, expect, it } from 'vitest';
import { mergePlans, planProject, windowKey } from '../../src/extract/plan.js';
import { MONTHS, planRanges } from '../../src/extract/range-plan.js';
import { dayRange } from '../../src/util/day.js';
import { UsageError } from '../../src/errors.js';

const today = '2026-11-21';
const empty = { loadedDays: [], partialDays: [], deferredDays: [] };
const base = { today, lookback: 3, includeToday: false };

describe('planning day windows', () => {
  it('turns --from/--to into one [D, D+1) window per day, --to exclusive', () => {
    const p = planProject('p', empty, { ...base, from: '2026-02-27', to: '2026-03-02' });
    expect(p.windows.map((w) => [w.day, w.dateTo])).toEqual([
      ['2026-02-27', '2026-02-28'],
      ['2026-02-28', '2026-03-01'],
      ['2026-03-01', '2026-03-02'],
    ]);
    expect(p.windows.every((w) => w.reason === 'range' && !w.partial)).toBe(true);
  });

  it('plans the last 30 days ending yesterday on an empty database', () => {
    const p = planProject('p', empty, base);
    expect(p.windows).toHaveLength(30);
    expect(p.windows[0]?.day).toBe('2026-10-22');
    expect(p.windows.at(-1)?.day).toBe('2026-11-20');
  });

  it('never plans today unless --include-today, which flags it partial', () => {
    expect(planProject('p', empty, base).windows.some((w) => w.day === today)).toBe(false);
    const withToday = planProject('p', empty, { ...base, includeToday: true });
    expect(withToday.windows.at(-1)).toMatchObject({ day: today, partial: true });
    expect(withToday.windows.filter((w) => w.partial)).toHaveLength(1);
  });

  it('continues from the last loaded day minus the lookback, up to yesterday', () => {
    const loaded = dayRange('2026-10-01', '2026-11-15');
    const p = planProject('p', { ...empty, loadedDays: loaded }, base);
    expect(p.windows.map((w) => w.day)).toEqual(dayRange('2026-11-12', '2026-11-21'));
    expect(p.windows.filter((w) => w.reason === 'lookback').map((w) => w.day)).toEqual([
      '2026-11-12',
      '2026-11-13',
      '2026-11-14',
    ]);
  });

  it('never looks back before the first loaded day', () => {
    const p = planProject('p', { ...empty, loadedDays: ['2026-11-18', '2026-11-19'] }, base);
    expect(p.windows.map((w) => [w.day, w.reason])).toEqual([
      ['2026-11-18', 'lookback'],
      ['2026-11-19', 'lookback'],
      ['2026-11-20', 'new'],
    ]);
  });

  it('adds every missing day inside the loaded range, and deferred and partial days', () => {
    const loaded = dayRange('2026-10-01', '2026-11-21').filter(
      (d) => d !== '2026-10-05' && d !== '2026-10-09',
    );
    const p = planProject(
      'p',
      { loadedDays: loaded, partialDays: ['2026-11-20'], deferredDays: ['2026-09-01'] },
      { ...base, lookback: 0 },
    );
    expect(p.windows.map((w) => [w.day, w.reason])).toEqual([
      ['2026-09-01', 'deferred'],
      ['2026-10-05', 'gap'],
      ['2026-10-09', 'gap'],
      ['2026-11-20', 'partial'],
    ]);
  });

  it('fills a one-day gap just before the last loaded day, even with no lookback', () => {
    // With --lookback 0 nothing else would plan 11-03: only the gap fill sees it.
    const p = planProject(
      'p',
      { ...empty, loadedDays: ['2026-11-01', '2026-11-02', '2026-11-04'] },
      { ...base, lookback: 0, today: '2026-11-05' },
    );
    expect(p.windows.map((w) => [w.day, w.reason])).toEqual([['2026-11-03', 'gap']]);
  });

  it('plans again the days whose last attempt failed, even before the first loaded day', () => {
    const loaded = dayRange('2026-11-10', '2026-11-21');
    const p = planProject('p', { ...empty, loadedDays: loaded, failedDays: ['2026-11-01'] }, base);
    expect(p.windows.filter((w) => w.reason === 'failed').map((w) => w.day)).toEqual(['2026-11-01']);
  });

  it('looks back only at days fetched before they settled (lookback days after they ended)', () => {
    // A backfill the budget spread over runs: its newest days were fetched long after they ended.
    const loaded = dayRange('2026-01-01', '2026-03-01');
    const late = Date.parse('2026-11-21T01:00:00Z');
    const fetchedAt = new Map(loaded.map((d) => [d, late]));
    // ...except the last one, fetched the morning after it ended: not yet settled.
    fetchedAt.set('2026-02-28', Date.parse('2026-03-01T00:10:00Z'));
    const p = planProject('p', { ...empty, loadedDays: loaded, fetchedAt }, base);
    expect(p.windows.filter((w) => w.reason === 'lookback').map((w) => w.day)).toEqual(['2026-02-28']);
    expect(p.windows[1]).toMatchObject({ day: '2026-03-01', reason: 'new' });
    // Fetched exactly `lookback` days after the day ended: settled.
    fetchedAt.set('2026-02-28', Date.parse('2026-03-04T00:00:00Z'));
    const settled = planProject('p', { ...empty, loadedDays: loaded, fetchedAt }, base);
    expect(settled.windows.filter((w) => w.reason === 'lookback')).toEqual([]);
  });

  it('plans nothing when everything up to yesterday is loaded and lookback is 0', () => {
    const loaded = dayRange('2026-10-01', '2026-11-21');
    expect(planProject('p', { ...empty, loadedDays: loaded }, { ...base, lookback: 0 }).windows).toEqual([]);
  });

  it('refuses --from on or after --to with a message that says the range is half-open', () => {
    expect(() => planProject('p', empty, { ...base, from: '2026-03-02', to: '2026-03-02' })).toThrow(
      UsageError,
    );
    expect(() => planProject('p', empty, { ...base, from: '2026-03-02', to: '2026-03-01' })).toThrow(
      /--to exclusive/,
    );
  });

  it('refuses a --to in the future and explains that today is excluded by default', () => {
    expect(() => planProject('p', empty, { ...base, to: '2026-11-25' })).toThrow(/future/);
    expect(() => planProject('p', empty, { ...base, from: today })).toThrow(/--include-today/);
  });

  it('merges projects and streams newest day first, every stream of a day together', () => {
    // A run cut short by the budget then leaves the latest days complete in every stream.
    const range = { ...base, from: '2026-01-01', to: '2026-01-03' };
    const a = planProject('a', empty, range);
    const aViews = planProject('a', empty, range, 'views');
    const b = planProject('b', empty, { ...base, from: '2026-01-02', to: '2026-01-04' });
    expect(mergePlans([b, aViews, a], ['visitors', 'views']).map(windowKey)).toEqual([
      'b:2026-01-03',
      'a:2026-01-02',
      'a:views:2026-01-02',
      'b:2026-01-02',
      'a:2026-01-01',
      'a:views:2026-01-01',
    ]);
  });
});

describe('settled days inside an explicit range', () => {
  const at = (iso: string): number => Date.parse(iso);
  // Lookback 3: 11-01 is settled once fetched on or after 11-05 00:00 UTC (its end plus 3 days).
  const state = {
    ...empty,
    loadedDays: ['2026-11-01', '2026-11-02', '2026-11-03'],
    fetchedAt: new Map([
      ['2026-11-01', at('2026-11-05T00:00:00Z')],
      ['2026-11-02', at('2026-11-05T23:59:59.999Z')],
      ['2026-11-03', at('2026-11-20T00:00:00Z')],
    ]),
  };
  const range = { ...base, from: '2026-11-01', to: '2026-11-05' };

  it('skips loaded days fetched at least --lookback days after they ended, and says why', () => {
    const p = planProject('p', state, range);
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-02', '2026-11-04']);
    expect(p.skipped).toEqual([
      {
        projectId: 'p',
        stream: 'visitors',
        day: '2026-11-01',
        reason: 'settled',
        fetchedAt: at('2026-11-05T00:00:00Z'),
      },
      {
        projectId: 'p',
        stream: 'visitors',
        day: '2026-11-03',
        reason: 'settled',
        fetchedAt: at('2026-11-20T00:00:00Z'),
      },
    ]);
  });

  it('treats the settled boundary as its end plus lookback days exactly (1 ms earlier is unsettled)', () => {
    const edge = (ms: number) =>
      planProject(
        'p',
        { ...empty, loadedDays: ['2026-11-01'], fetchedAt: new Map([['2026-11-01', ms]]) },
        {
          ...base,
          from: '2026-11-01',
          to: '2026-11-02',
        },
      ).windows.length;
    expect(edge(at('2026-11-05T00:00:00Z'))).toBe(0);
    expect(edge(at('2026-11-05T00:00:00Z') - 1)).toBe(1);
  });

  it('fetches settled days again with --refresh', () => {
    const p = planProject('p', state, { ...range, refresh: true });
    expect(p.windows.map((w) => w.day)).toEqual(dayRange('2026-11-01', '2026-11-05'));
    expect(p.skipped).toEqual([]);
  });

  it('never counts a truncated day as settled: a bigger cap can still change it', () => {
    const p = planProject('p', { ...state, truncatedDays: ['2026-11-01'] }, range);
    expect(p.windows.map((w) => w.day)).toContain('2026-11-01');
  });

  it('never counts a partial day as settled', () => {
    const p = planProject('p', { ...state, partialDays: ['2026-11-03'] }, range);
    expect(p.windows.map((w) => w.day)).toContain('2026-11-03');
  });
});

describe('days after today in the database (a clock that was ahead, issue 27 item 5)', () => {
  it('plan as if they were not there: no gap of decades, no window after today', () => {
    const loaded = [...dayRange('2026-11-10', '2026-11-20'), ...dayRange('2099-12-08', '2100-01-01')];
    const p = planProject('p', { loadedDays: loaded, partialDays: [], deferredDays: ['2099-12-09'] }, base);
    expect(p.windows.every((w) => w.day < today)).toBe(true);
    expect(p.windows.length).toBeLessThanOrEqual(5);
  });

  it('a database holding only days after today plans the first 30 days, as an empty one does', () => {
    const p = planProject(
      'p',
      { loadedDays: dayRange('2099-12-08', '2100-01-01'), partialDays: [], deferredDays: [] },
      base,
    );
    expect(p.windows).toHaveLength(30);
    expect(p.windows.at(-1)?.day).toBe('2026-11-20');
    const r = planRanges('p', { loadedDays: ['2099-12-01'], partialDays: [], deferredDays: [] }, base, {
      stream: 'feedback',
      grid: MONTHS,
      kind: 'events',
    });
    expect(r.windows.map((w) => w.day)).toEqual(['2026-10-01', '2026-11-01']);
  });

  it('ranges: a month loaded in 2099 is neither re-read nor a reason to plan every month between', () => {
    const plan = planRanges(
      'p',
      { loadedDays: ['2026-10-01', '2099-12-01'], partialDays: [], deferredDays: [] },
      base,
      { stream: 'feedback', grid: MONTHS, kind: 'events' },
    );
    expect(plan.windows.map((w) => w.day)).toEqual(['2026-10-01', '2026-11-01']);
  });
});
