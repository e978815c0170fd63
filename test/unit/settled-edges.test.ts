import { describe, expect, it } from 'vitest';
import type { PlanOptions, ProjectState } from '../../src/extract/plan.js';
import { streamByName } from '../../src/streams/index.js';

/**
 * The streams' own settled rules on the edge days, each with a fixed "today": a rule off by one
 * day is caught on every day of the year, not only on the day the calendar lands on the edge.
 */

const empty: ProjectState = { loadedDays: [], partialDays: [], deferredDays: [] };

/** One loaded window [start, end), fetched at `fetched`. */
function loadedOnce(start: string, end: string, fetched: string): ProjectState {
  return {
    ...empty,
    loadedDays: [start],
    windowEnds: new Map([[start, end]]),
    fetchedAt: new Map([[start, Date.parse(fetched)]]),
  };
}

function plan(stream: string, state: ProjectState, opts: Partial<PlanOptions> & { today: string }) {
  const p = streamByName(stream).plan?.('p', state, { lookback: 3, includeToday: false, ...opts });
  if (p === undefined) throw new Error(`${stream} plans its own windows`);
  return p;
}

describe("feedback's own lookback (30 days, whatever --lookback says)", () => {
  // October ends at 11-01T00:00; 30 days later is 12-01T00:00.
  it('reads a month again when its last fetch was made less than 30 days after it ended', () => {
    const p = plan('feedback', loadedOnce('2026-10-01', '2026-11-01', '2026-11-30T23:59:59Z'), {
      today: '2026-12-01',
    });
    expect(p.windows.map((w) => [w.day, w.dateTo, w.reason])).toEqual([
      ['2026-10-01', '2026-11-01', 'lookback'],
      ['2026-11-01', '2026-12-01', 'new'],
    ]);
    expect(p.skipped).toEqual([]);
  });

  it('leaves a month alone once a fetch was made 30 days after it ended', () => {
    const p = plan('feedback', loadedOnce('2026-10-01', '2026-11-01', '2026-12-01T00:00:00Z'), {
      today: '2026-12-01',
    });
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-01']);
    expect(p.skipped.map((s) => [s.day, s.reason])).toEqual([['2026-10-01', 'settled']]);
  });

  it('takes --feedback-lookback over its default, and ignores --lookback', () => {
    const state = loadedOnce('2026-10-01', '2026-11-01', '2026-11-20T00:00:00Z');
    const shorter = plan('feedback', state, { today: '2026-12-01', lookbackByStream: { feedback: 19 } });
    expect(shorter.skipped.map((s) => s.day)).toEqual(['2026-10-01']);
    const longer = plan('feedback', state, { today: '2026-12-01', lookbackByStream: { feedback: 20 } });
    expect(longer.windows.map((w) => w.day)).toContain('2026-10-01');
    const general = plan('feedback', state, { today: '2026-12-01', lookback: 0 });
    expect(general.windows.map((w) => w.day)).toContain('2026-10-01');
  });
});

describe('a period is fetched once it is complete and --lookback days old, not a day sooner', () => {
  // The ISO week of Monday 2026-11-09 ends at 11-16; with a 3-day lookback it is final on 11-19.
  it('takes the week on the day it becomes final', () => {
    expect(plan('visitors_weekly', empty, { today: '2026-11-18', from: '2026-11-09' }).windows).toEqual([]);
    const p = plan('visitors_weekly', empty, { today: '2026-11-19', from: '2026-11-09' });
    expect(p.windows.map((w) => [w.day, w.dateTo, w.partial])).toEqual([['2026-11-09', '2026-11-16', false]]);
  });

  it('takes a week across the new year on the day it becomes final', () => {
    // Monday 2026-12-28 to 2027-01-04, final on 2027-01-07.
    expect(plan('visitors_weekly', empty, { today: '2027-01-06', from: '2026-12-28' }).windows).toEqual([]);
    const p = plan('visitors_weekly', empty, { today: '2027-01-07', from: '2026-12-28' });
    expect(p.windows.map((w) => [w.day, w.dateTo])).toEqual([['2026-12-28', '2027-01-04']]);
  });

  it('takes a month on the day it becomes final, at the end of a short and of a long month', () => {
    expect(plan('visitors_monthly', empty, { today: '2027-03-03', from: '2027-02-01' }).windows).toEqual([]);
    const feb = plan('visitors_monthly', empty, { today: '2027-03-04', from: '2027-02-01' });
    expect(feb.windows.map((w) => [w.day, w.dateTo])).toEqual([['2027-02-01', '2027-03-01']]);
    expect(plan('visitors_monthly', empty, { today: '2027-01-03', from: '2026-12-01' }).windows).toEqual([]);
    const dec = plan('visitors_monthly', empty, { today: '2027-01-04', from: '2026-12-01' });
    expect(dec.windows.map((w) => [w.day, w.dateTo])).toEqual([['2026-12-01', '2027-01-01']]);
  });

  it('keeps the incremental run to the same rule on an empty database', () => {
    // 30 days back from 2026-12-04: November is final that day, December is running.
    const p = plan('visitors_monthly', empty, { today: '2026-12-04' });
    expect(p.windows.map((w) => w.day)).toEqual(['2026-11-01']);
    expect(plan('visitors_monthly', empty, { today: '2026-12-03' }).windows).toEqual([]);
  });
});
