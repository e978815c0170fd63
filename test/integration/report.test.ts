import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { gatherReport, listProjects } from '../../src/report/data.js';
import type { ReportData } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { addDays } from '../../src/util/day.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import {
  buildEmptyDatabase,
  buildReportFixture,
  FIXTURE_FIRST_DAY,
  FIXTURE_LAST_DAY,
  FIXTURE_PROJECT,
  NASTY_PATH,
  PAGES,
  siteCounts,
  sumPage,
  sumSite,
  UNICODE_PATH,
} from '../helpers/report-fixture.js';

const tmp = tempDir('mintlify-etl-report-');
afterAll(() => tmp.cleanup());

async function report(file: string, days = 28): Promise<ReportData> {
  const db = await openDatabase(file, { readOnly: true });
  try {
    return await gatherReport(duckSession(db.connection), { days });
  } finally {
    db.close();
  }
}

// Day index of a fixture day: 0 = 2026-01-02, 59 = 2026-03-02.
const LAST = 59;

describe('report data from a real DuckDB database (60 days of site and page rows)', () => {
  let data: ReportData;
  beforeAll(async () => {
    const file = `${tmp.dir}/full.duckdb`;
    await buildReportFixture(file);
    data = await report(file);
  });

  it('covers the last 28 days up to the last loaded day, every day loaded', () => {
    expect(data.projects).toHaveLength(1);
    const p = data.projects[0];
    expect(p?.projectId).toBe(FIXTURE_PROJECT);
    expect(p?.window).toEqual({ from: '2026-02-03', to: FIXTURE_LAST_DAY, days: 28, daysLoaded: 28 });
    expect(p?.daily.map((d) => d.day)).toEqual(
      Array.from({ length: 28 }, (_, i) => addDays('2026-02-03', i)),
    );
    expect(p?.coverage).toEqual({
      firstDay: FIXTURE_FIRST_DAY,
      lastDay: FIXTURE_LAST_DAY,
      daysLoaded: 60,
      missingDays: 0,
      partialDays: 0,
    });
  });

  it('reports the last day with its human/AI split, 7-day averages and week-over-week change', () => {
    const l = data.projects[0]?.latest;
    const today = siteCounts(LAST);
    const weekAgo = siteCounts(LAST - 7);
    expect(l).toMatchObject({ day: FIXTURE_LAST_DAY, human: today.human, ai: today.ai, total: today.total });
    expect(l?.totalWowPct).toBeCloseTo((today.total - weekAgo.total) / weekAgo.total, 10);
    expect(l?.humanWowPct).toBeCloseTo((today.human - weekAgo.human) / weekAgo.human, 10);
    expect(l?.aiWowPct).toBeCloseTo((today.ai - weekAgo.ai) / weekAgo.ai, 10);
    expect(l?.total7dAvg).toBeCloseTo(sumSite('total', LAST - 6, LAST + 1) / 7, 10);
    expect(l?.human7dAvg).toBeCloseTo(sumSite('human', LAST - 6, LAST + 1) / 7, 10);
    expect(l?.aiShare).toBeCloseTo(today.ai / (today.human + today.ai), 10);
  });

  it('sums the last 7 days and the 7 before as visitor-days', () => {
    const p = data.projects[0];
    expect(p?.last7).toMatchObject({
      from: '2026-02-24',
      to: FIXTURE_LAST_DAY,
      daysLoaded: 7,
      humanVisitorDays: sumSite('human', 53, 60),
      aiVisitorDays: sumSite('ai', 53, 60),
      totalVisitorDays: sumSite('total', 53, 60),
    });
    expect(p?.prev7).toMatchObject({
      from: '2026-02-17',
      to: '2026-02-23',
      totalVisitorDays: sumSite('total', 46, 53),
    });
    expect(p?.last7Change).toBeCloseTo(sumSite('total', 53, 60) / sumSite('total', 46, 53) - 1, 10);
    expect(p?.windowTotals.totalVisitorDays).toBe(sumSite('total', 32, 60));
  });

  it('lists the ISO weeks the window touches, whole, and marks the 1-day week as not comparable', () => {
    const weeks = data.projects[0]?.weekly ?? [];
    expect(weeks.map((w) => [w.isoWeek, w.weekStart, w.days, w.comparable])).toEqual([
      [6, '2026-02-02', 7, true],
      [7, '2026-02-09', 7, true],
      [8, '2026-02-16', 7, true],
      [9, '2026-02-23', 7, true],
      [10, '2026-03-02', 1, false],
    ]);
    // 2026-02-02 is day index 31.
    expect(weeks[0]?.totalVisitorDays).toBe(sumSite('total', 31, 38));
    expect(weeks[0]?.totalVisitorDaysChangePct).toBeCloseTo(
      sumSite('total', 31, 38) / sumSite('total', 24, 31) - 1,
      10,
    );
  });

  it('ranks the top pages by visitor-days over the last 7 days, paths byte-exact', () => {
    const top = data.projects[0]?.topPages ?? [];
    const expected = [...PAGES]
      .map((path) => ({ path, total: sumPage(path, 'total', 53, 60) }))
      .sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
    expect(top.map((t) => t.path)).toEqual(expected.map((e) => e.path));
    expect(top.map((t) => t.totalVisitorDays7d)).toEqual(expected.map((e) => e.total));
    expect(top.map((t) => t.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(top.find((t) => t.path === NASTY_PATH)?.humanVisitorDays7d).toBe(
      sumPage(NASTY_PATH, 'human', 53, 60),
    );
    expect(top.some((t) => t.path === UNICODE_PATH)).toBe(true);
    const api = top.find((t) => t.path === '/api-reference/users/create');
    expect(api?.aiShare7d).toBeCloseTo(90 / 170, 10);
  });

  it('finds the biggest movers up and down against the previous 7 days', () => {
    const p = data.projects[0];
    expect(p?.moversUp[0]).toMatchObject({
      path: '/guides/rising',
      totalVisitorDaysPrev7d: 0,
      totalVisitorDays7d: sumPage('/guides/rising', 'total', 53, 60),
      changePct: null,
    });
    expect(p?.moversDown.map((m) => m.path)).toEqual(['/guides/falling']);
    expect(p?.moversDown[0]?.change).toBe(
      sumPage('/guides/falling', 'total', 53, 60) - sumPage('/guides/falling', 'total', 46, 53),
    );
    expect(p?.moversUp.every((m) => (m.change ?? 0) > 0)).toBe(true);
  });

  it('renders those numbers in the terminal report', () => {
    const out = renderTerminal(data, { color: false, width: 120 });
    expect(out).toContain(`Mintlify visitors · project ${FIXTURE_PROJECT}`);
    expect(out).toContain(sumSite('total', 53, 60).toLocaleString('en-US'));
    expect(out).toContain(NASTY_PATH);
    expect(out).toMatch(/↑\s+\+1,043\s+new\s+0\s+1,043\s+\/guides\/rising/);
  });

  it('honours --days, and starts a longer window at the first loaded day, not before', async () => {
    const shorter = await report(`${tmp.dir}/full.duckdb`, 7);
    expect(shorter.projects[0]?.window).toEqual({
      from: '2026-02-24',
      to: FIXTURE_LAST_DAY,
      days: 7,
      daysLoaded: 7,
    });
    const longer = await report(`${tmp.dir}/full.duckdb`, 90);
    expect(longer.days).toBe(90);
    expect(longer.projects[0]?.window).toEqual({
      from: FIXTURE_FIRST_DAY,
      to: FIXTURE_LAST_DAY,
      days: 60,
      daysLoaded: 60,
    });
    expect(longer.projects[0]?.daily).toHaveLength(60);
    expect(longer.projects[0]?.windowTotals.totalVisitorDays).toBe(sumSite('total', 0, 60));
  });
});

describe('7-day averages right after a first sync', () => {
  it('start on the seventh loaded day instead of ramping up from the first day alone', async () => {
    const p = (await report(`${tmp.dir}/full.duckdb`, 90)).projects[0];
    const daily = p?.daily ?? [];
    for (const d of daily.slice(0, 6)) {
      expect(d, d.day).toMatchObject({ total7dAvg: null, human7dAvg: null, ai7dAvg: null });
    }
    expect(daily.slice(0, 7).map((d) => d.avg7dDays)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(daily[6]?.total7dAvg).toBeCloseTo(sumSite('total', 0, 7) / 7, 10);
    // The 28-day average likewise waits for 28 days.
    expect(daily[26]?.total28dAvg).toBeNull();
    expect(daily[27]?.total28dAvg).toBeCloseTo(sumSite('total', 0, 28) / 28, 10);
  });

  it('are blank in the report, which says why, when fewer than 7 days are loaded', async () => {
    const file = `${tmp.dir}/three-days.duckdb`;
    await buildReportFixture(file, { skip: Array.from({ length: 57 }, (_, i) => i) });
    const p = (await report(file)).projects[0];
    expect(p?.latest.total7dAvg).toBeNull();
    const out = renderTerminal({ generatedAt: '', days: 28, projects: p ? [p] : [] }, { color: false });
    const total = out.split('\n').find((l) => l.trimStart().startsWith('total')) ?? '';
    expect(total).toMatch(/\s–\s/);
    expect(out).toContain(
      'The 7-day average needs 7 complete days loaded; 3 of the 7 days to 2026-03-02 are.',
    );
  });
});

describe('report data with gaps and a partial day', () => {
  it('leaves a missing day out of the series and the sums, and ends on the last complete day', async () => {
    const file = `${tmp.dir}/gaps.duckdb`;
    await buildReportFixture(file, { skip: [40, 55], partialLast: true });
    const p = (await report(file)).projects[0];
    // Day 59 (2026-03-02) is partial: half a day against full ones would read as a collapse.
    expect(p?.latest).toMatchObject({ day: '2026-03-01', partial: false });
    expect(p?.daily.some((d) => d.day === '2026-03-02')).toBe(false);
    expect(p?.window.daysLoaded).toBe(26);
    expect(p?.daily.some((d) => d.day === '2026-02-11')).toBe(false);
    // The database holds the partial day (counted among the days loaded); the window ends before it.
    expect(p?.coverage).toMatchObject({
      lastDay: '2026-03-02',
      daysLoaded: 58,
      missingDays: 2,
      partialDays: 1,
    });
    expect(p?.window.to).toBe('2026-03-01');
    expect(p?.last7.daysLoaded).toBe(6);
    expect(p?.last7.totalVisitorDays).toBe(sumSite('total', 52, 59) - siteCounts(55).total);
    expect(p?.prev7.totalVisitorDays).toBe(sumSite('total', 45, 52));
    // 2026-02-11 is in ISO week 7, which is therefore short, and so is the comparison after it.
    const w = p?.weekly ?? [];
    expect(w.map((x) => [x.isoWeek, x.days, x.comparable])).toEqual([
      [6, 7, true],
      [7, 6, false],
      [8, 7, false],
      [9, 6, false],
    ]);
    const out = renderTerminal({ generatedAt: '', days: 28, projects: p ? [p] : [] }, { color: false });
    expect(out.replace(/\s+/g, ' ')).toContain(
      '1 day was still in progress when loaded (sync --include-today) and is left out: the report ends on 2026-03-01, the last complete day (the database holds days up to 2026-03-02).',
    );
    expect(out).toContain('2 of the 28 days are not loaded');
  });
});

describe('an empty database', () => {
  it('has no project to report, which is not an error', async () => {
    const file = `${tmp.dir}/empty.duckdb`;
    await buildEmptyDatabase(file);
    const db = await openDatabase(file, { readOnly: true });
    try {
      expect(await listProjects(duckSession(db.connection))).toEqual([]);
      expect((await gatherReport(duckSession(db.connection), { days: 28 })).projects).toEqual([]);
    } finally {
      db.close();
    }
  });
});
