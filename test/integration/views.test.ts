import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { loadWindow } from '../../src/load/duckdb/visitor-windows.js';
import { type WindowLoad } from '../../src/load/site-page-rows.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Project p: 2024-01-01 (a Monday, ISO 2024-W01) to 2024-01-21 (a Sunday), with 01-10 and 01-11
 * missing. On day d of the month: human 10d, ai d, total 11d. 01-21 is partial.
 * Pages of p: /a every day (human d, ai 1); /b and /B on 15..21 (2 + 2); /c on 8..14 (5 + 0).
 * Project q straddles the ISO year boundary: 2020-12-27 (2020-W52), 2021-01-03 (2020-W53, all
 * zero), 2021-01-04 (2021-W01).
 * Project r: 2024-03-02 to 2024-03-19, every day loaded, total 10 x the day of the month: a 2-day
 * week (W09), two complete weeks (W10, W11), then a 2-day week (W12) as after a first sync.
 */
let cleanup: () => void;
let db: Database;

function day(d: number): string {
  return `2024-01-${String(d).padStart(2, '0')}`;
}

function window(
  projectId: string,
  dayText: string,
  site: WindowLoad['site'],
  pages: WindowLoad['pages'],
  partial = false,
): WindowLoad {
  return {
    projectId,
    day: dayText,
    site,
    pages,
    partial,
    pagesFetched: 1,
    attempts: 1,
    runId: 'views',
    // A partial day was fetched before it ended: v_coverage reads that from sync_windows.
    fetchedAt: new Date(partial ? `${dayText}T12:00:00Z` : '2024-02-01T00:00:00Z'),
    apiTotalsTotal: site.total,
  };
}

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'views.duckdb'));
  for (let d = 1; d <= 21; d++) {
    if (d === 10 || d === 11) continue;
    const pages: { path: string; human: number; ai: number; total: number }[] = [
      { path: '/a', human: d, ai: 1, total: d + 1 },
    ];
    if (d >= 15)
      pages.push({ path: '/b', human: 2, ai: 2, total: 4 }, { path: '/B', human: 2, ai: 2, total: 4 });
    if (d >= 8 && d <= 14) pages.push({ path: '/c', human: 5, ai: 0, total: 5 });
    await loadWindow(db, window('p', day(d), { human: 10 * d, ai: d, total: 11 * d }, pages, d === 21));
  }
  await loadWindow(db, window('q', '2020-12-27', { human: 10, ai: 0, total: 10 }, []));
  await loadWindow(db, window('q', '2021-01-03', { human: 0, ai: 0, total: 0 }, []));
  await loadWindow(db, window('q', '2021-01-04', { human: 5, ai: 0, total: 5 }, []));
  for (let d = 2; d <= 19; d++) {
    const dayText = `2024-03-${String(d).padStart(2, '0')}`;
    await loadWindow(db, window('r', dayText, { human: 9 * d, ai: d, total: 10 * d }, []));
  }
});
afterAll(() => {
  db.close();
  cleanup();
});

async function rows(sql: string): Promise<Row[]> {
  return queryRows(db.connection, sql);
}

describe('v_site_daily', () => {
  it('keeps the day rows and adds the AI share', async () => {
    const r = await rows(`SELECT * FROM v_site_daily WHERE project_id = 'p' AND day = '2024-01-05'`);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({
      project_id: 'p',
      day: '2024-01-05',
      human: 50,
      ai: 5,
      total: 55,
      partial: false,
    });
    expect(r[0]?.['ai_share']).toBeCloseTo(5 / 55, 12);
    const zero = await rows(
      `SELECT ai_share FROM v_site_daily WHERE project_id = 'q' AND day = '2021-01-03'`,
    );
    expect(zero).toEqual([{ ai_share: null }]);
  });

  it('averages over the loaded days of the calendar window, not over the last 7 rows', async () => {
    const r = await rows(
      `SELECT day, human_7d_avg, ai_7d_avg, total_7d_avg, total_28d_avg FROM v_site_daily WHERE project_id = 'p' ORDER BY day`,
    );
    const at = (d: number): Row => r.find((x) => x['day'] === day(d)) as Row;
    // 01-07: days 1..7 all loaded.
    expect(at(7)['human_7d_avg']).toBeCloseTo(40, 12);
    expect(at(7)['ai_7d_avg']).toBeCloseTo(4, 12);
    expect(at(7)['total_7d_avg']).toBeCloseTo(44, 12);
    // 01-12: window 6..12 holds 6, 7, 8, 9, 12 (10 and 11 missing); 7 rows back would reach day 5.
    expect(at(12)['total_7d_avg']).toBeCloseTo((11 * (6 + 7 + 8 + 9 + 12)) / 5, 12);
    expect(at(12)['ai_7d_avg']).toBeCloseTo((6 + 7 + 8 + 9 + 12) / 5, 12);
    // 01-01: only itself.
    expect(at(1)['total_7d_avg']).toBeCloseTo(11, 12);
    // 01-21: 28-day window from 12-25 holds the 19 loaded days 1..21 except 10, 11.
    expect(at(21)['total_28d_avg']).toBeCloseTo((11 * (231 - 21)) / 19, 12);
    // 01-17: window 11..17 holds 12..17.
    expect(at(17)['total_7d_avg']).toBeCloseTo((11 * (12 + 13 + 14 + 15 + 16 + 17)) / 6, 12);
  });

  it('says how many loaded days each average covers, and whether its 7-day window is full', async () => {
    const r = await rows(
      `SELECT day, avg_7d_days, avg_7d_full, avg_28d_days FROM v_site_daily WHERE project_id = 'p' ORDER BY day`,
    );
    const at = (d: number): Row => r.find((x) => x['day'] === day(d)) as Row;
    // The first days of the data average over fewer days: a ramp, not a trend.
    expect(at(1)).toMatchObject({ avg_7d_days: 1, avg_7d_full: false, avg_28d_days: 1 });
    expect(at(6)).toMatchObject({ avg_7d_days: 6, avg_7d_full: false });
    expect(at(7)).toMatchObject({ avg_7d_days: 7, avg_7d_full: true });
    // 10 and 11 missing: the windows of 10..17 hold fewer than 7 days.
    expect(at(12)).toMatchObject({ avg_7d_days: 5, avg_7d_full: false });
    expect(at(18)).toMatchObject({ avg_7d_days: 7, avg_7d_full: true });
    // 21 is partial: 7 days loaded, but half a day in the mean.
    expect(at(21)).toMatchObject({ avg_7d_days: 7, avg_7d_full: false, avg_28d_days: 19 });
  });

  it('compares with the same weekday a week earlier, NULL when that day is missing or zero', async () => {
    const r = await rows(`SELECT day, total_wow_pct FROM v_site_daily WHERE project_id = 'p' ORDER BY day`);
    const wow = new Map(r.map((x) => [x['day'], x['total_wow_pct']]));
    for (let d = 1; d <= 7; d++) expect(wow.get(day(d))).toBeNull();
    expect(wow.get(day(8))).toBeCloseTo((88 - 11) / 11, 12);
    expect(wow.get(day(9))).toBeCloseTo((99 - 22) / 22, 12);
    expect(wow.get(day(12))).toBeCloseTo((132 - 55) / 55, 12);
    expect(wow.get(day(17))).toBeNull();
    expect(wow.get(day(18))).toBeNull();
    expect(wow.get(day(19))).toBeCloseTo((209 - 132) / 132, 12);
    expect(r).toHaveLength(19);
    const q = await rows(`SELECT day, total_wow_pct FROM v_site_daily WHERE project_id = 'q' ORDER BY day`);
    expect(q).toEqual([
      { day: '2020-12-27', total_wow_pct: null },
      { day: '2021-01-03', total_wow_pct: -1 },
      { day: '2021-01-04', total_wow_pct: null },
    ]);
  });
});

describe('v_site_weekly', () => {
  it('sums visitor-days per ISO week with the number of loaded days, and changes only between complete weeks', async () => {
    const r = await rows(`SELECT * FROM v_site_weekly WHERE project_id = 'p' ORDER BY week_start`);
    // No visitors_weekly window: the true weekly uniques are not known (NULL, never 0).
    const noUniques = {
      human: null,
      ai: null,
      total: null,
      uniques_partial: null,
      uniques_source: null,
      total_change_pct: null,
    };
    expect(r).toEqual([
      {
        project_id: 'p',
        iso_year: 2024,
        iso_week: 1,
        week_start: '2024-01-01',
        days: 7,
        human_visitor_days: 280,
        ai_visitor_days: 28,
        total_visitor_days: 308,
        has_partial_day: false,
        complete: true,
        total_visitor_days_change_pct: null,
        ...noUniques,
      },
      {
        project_id: 'p',
        iso_year: 2024,
        iso_week: 2,
        week_start: '2024-01-08',
        days: 5,
        human_visitor_days: 560,
        ai_visitor_days: 56,
        total_visitor_days: 616,
        has_partial_day: false,
        complete: false,
        total_visitor_days_change_pct: null,
        ...noUniques,
      },
      {
        project_id: 'p',
        iso_year: 2024,
        iso_week: 3,
        week_start: '2024-01-15',
        days: 7,
        human_visitor_days: 1260,
        ai_visitor_days: 126,
        total_visitor_days: 1386,
        has_partial_day: true,
        complete: false,
        total_visitor_days_change_pct: null,
        ...noUniques,
      },
    ]);
  });

  it('compares a complete week with the complete week before, never with a 2-day week', async () => {
    const r = await rows(
      `SELECT week_start, days, complete, total_visitor_days, total_visitor_days_change_pct
       FROM v_site_weekly WHERE project_id = 'r' ORDER BY week_start`,
    );
    expect(r).toEqual([
      {
        week_start: '2024-02-26',
        days: 2,
        complete: false,
        total_visitor_days: 50,
        total_visitor_days_change_pct: null,
      },
      {
        week_start: '2024-03-04',
        days: 7,
        complete: true,
        total_visitor_days: 490,
        total_visitor_days_change_pct: null,
      },
      {
        week_start: '2024-03-11',
        days: 7,
        complete: true,
        total_visitor_days: 980,
        total_visitor_days_change_pct: 1,
      },
      {
        week_start: '2024-03-18',
        days: 2,
        complete: false,
        total_visitor_days: 370,
        total_visitor_days_change_pct: null,
      },
    ]);
  });

  it('puts the days around New Year in their ISO weeks (2020-W53 runs into January 2021)', async () => {
    const r = await rows(
      `SELECT iso_year, iso_week, week_start, days, total_visitor_days, total_visitor_days_change_pct
       FROM v_site_weekly WHERE project_id = 'q' ORDER BY week_start`,
    );
    expect(r).toEqual([
      {
        iso_year: 2020,
        iso_week: 52,
        week_start: '2020-12-21',
        days: 1,
        total_visitor_days: 10,
        total_visitor_days_change_pct: null,
      },
      {
        iso_year: 2020,
        iso_week: 53,
        week_start: '2020-12-28',
        days: 1,
        total_visitor_days: 0,
        total_visitor_days_change_pct: null,
      },
      {
        iso_year: 2021,
        iso_week: 1,
        week_start: '2021-01-04',
        days: 1,
        total_visitor_days: 5,
        total_visitor_days_change_pct: null,
      },
    ]);
  });

  it('names no column "visitors" (sums of daily uniques are visitor-days)', async () => {
    const cols = await rows(
      `SELECT column_name FROM duckdb_columns() WHERE table_name IN ('v_site_weekly', 'v_page_trends') AND column_name LIKE '%visitors%'`,
    );
    expect(cols).toEqual([]);
  });
});

describe('v_page_trends', () => {
  it('compares the last 7 days with the 7 before, relative to the latest complete day, ranked', async () => {
    const r = await rows(
      `SELECT path, last_day, days_loaded_7d, days_loaded_prev_7d, human_visitor_days_7d, ai_visitor_days_7d,
              total_visitor_days_7d, total_visitor_days_prev_7d, change, change_pct, ai_share_7d, rank
       FROM v_page_trends WHERE project_id = 'p' ORDER BY rank`,
    );
    // 01-21 is partial: half a day against full ones is no trend, so the windows end on 01-20.
    const common = { last_day: '2024-01-20', days_loaded_7d: 7, days_loaded_prev_7d: 5 };
    // /a: last 7 = days 14..20 (human 119, ai 7); previous = 7, 8, 9, 12, 13 (total 54).
    expect(r[0]).toMatchObject({
      ...common,
      path: '/a',
      human_visitor_days_7d: 119,
      ai_visitor_days_7d: 7,
      total_visitor_days_7d: 126,
      total_visitor_days_prev_7d: 54,
      change: 72,
      rank: 1,
    });
    expect(r[0]?.['change_pct']).toBeCloseTo(72 / 54, 12);
    expect(r[0]?.['ai_share_7d']).toBeCloseTo(7 / 126, 12);
    // /B and /b tie on 24 (days 15..20); the path breaks the tie ('/B' sorts first).
    const newcomer = {
      ...common,
      human_visitor_days_7d: 12,
      ai_visitor_days_7d: 12,
      total_visitor_days_7d: 24,
    };
    const rest = { total_visitor_days_prev_7d: 0, change: 24, change_pct: null, ai_share_7d: 0.5 };
    expect(r[1]).toEqual({ ...newcomer, ...rest, path: '/B', rank: 2 });
    expect(r[2]).toEqual({ ...newcomer, ...rest, path: '/b', rank: 3 });
    // /c: day 14 in the last 7; 8, 9, 12, 13 before (10 and 11 are not loaded).
    expect(r[3]).toEqual({
      ...common,
      path: '/c',
      human_visitor_days_7d: 5,
      ai_visitor_days_7d: 0,
      total_visitor_days_7d: 5,
      total_visitor_days_prev_7d: 20,
      change: -15,
      change_pct: -0.75,
      ai_share_7d: 0,
      rank: 4,
    });
    expect(r).toHaveLength(4);
  });
});

describe('v_coverage', () => {
  it('lists exactly the missing calendar days between the first and last loaded day', async () => {
    expect(
      await rows(
        `SELECT project_id, first_day, last_day, days_loaded, days_missing, missing_days, days_partial, partial_days
         FROM v_coverage WHERE project_id IN ('p', 'q') ORDER BY project_id`,
      ),
    ).toEqual([
      {
        project_id: 'p',
        first_day: '2024-01-01',
        last_day: '2024-01-21',
        days_loaded: 19,
        days_missing: 2,
        missing_days: ['2024-01-10', '2024-01-11'],
        days_partial: 1,
        partial_days: ['2024-01-21'],
      },
      {
        project_id: 'q',
        first_day: '2020-12-27',
        last_day: '2021-01-04',
        days_loaded: 3,
        days_missing: 6,
        missing_days: ['2020-12-28', '2020-12-29', '2020-12-30', '2020-12-31', '2021-01-01', '2021-01-02'],
        days_partial: 0,
        partial_days: [],
      },
    ]);
  });
});
