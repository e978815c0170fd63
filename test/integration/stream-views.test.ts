import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Hand-computed fixtures for the views over the day streams, inserted straight into the tables.
 * Every window is fetched at 01:00 the day after it (complete) unless said otherwise; a partial
 * window is fetched at 12:00 on its own day. Each project below tests one view:
 * cov (v_coverage), vw / vw7 (v_views_daily), sr / sr2 / sr3 (v_search_terms), ph / ph2
 * (v_page_health), ac (v_assistant_callers_daily). The comments next to each test give the sums.
 */
let cleanup: () => void;
let db: Database;

async function run(sql: string): Promise<void> {
  await db.connection.run(sql);
}

async function rows(sql: string): Promise<Row[]> {
  return queryRows(db.connection, sql);
}

/** Numbers rounded to 9 decimals, so that means like 230/6 compare exactly. */
function rounded(rs: Row[]): Row[] {
  return rs.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v]),
    ),
  );
}

function r9(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

interface WindowOpts {
  /** Fetched at 12:00 on the day itself (before window_end). */
  partial?: boolean;
  truncated?: boolean;
  status?: 'loaded' | 'failed';
  /** Overrides the fetch time. */
  fetchedAt?: string;
}

async function windowRow(project: string, stream: string, day: string, o: WindowOpts = {}): Promise<void> {
  const fetched = o.fetchedAt
    ? `TIMESTAMPTZ '${o.fetchedAt}'`
    : o.partial
      ? `DATE '${day}' + INTERVAL 12 HOURS`
      : `DATE '${day}' + INTERVAL 25 HOURS`;
  await run(
    `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
       api_totals_total, attempts, fetched_at, run_id, error)
     VALUES ('${project}', '${stream}', DATE '${day}', DATE '${day}' + 1, '${o.status ?? 'loaded'}', 1, 1,
       ${o.truncated ?? false}, NULL, 1, (${fetched})::TIMESTAMPTZ, 'stream-views', NULL)`,
  );
}

async function siteDay(
  table: 'site_daily' | 'site_views_daily',
  project: string,
  day: string,
  human: number,
  ai: number,
  total: number,
  partial = false,
): Promise<void> {
  await run(
    `INSERT INTO ${table} VALUES ('${project}', DATE '${day}', ${human}, ${ai}, ${total}, ${partial},
       TIMESTAMPTZ '2024-12-01 00:00:00+00', 'stream-views')`,
  );
}

/** A loaded search day: truncated in search_totals_daily; `window` sets the sync_windows row. */
async function searchDay(
  project: string,
  day: string,
  truncated = false,
  window: WindowOpts = {},
): Promise<void> {
  await run(`INSERT INTO search_totals_daily VALUES ('${project}', DATE '${day}', 0, 0, ${truncated})`);
  await windowRow(project, 'searches', day, window);
}

async function term(
  project: string,
  day: string,
  query: string,
  hits: number,
  ctr: number,
  path: string | null,
): Promise<void> {
  await run(
    `INSERT INTO search_daily VALUES ('${project}', DATE '${day}', '${query}', ${hits}, ${ctr},
       ${path === null ? 'NULL' : `'${path}'`}, NULL)`,
  );
}

/** Days from..to of a month, as 'YYYY-MM-DD'. */
function days(month: string, from: number, to: number): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d++) out.push(`${month}-${String(d).padStart(2, '0')}`);
  return out;
}

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'stream-views.duckdb'));

  // --- cov: visitors 05-01, 05-02, 05-04 (05-03 failed = missing; 05-04 partial); searches
  // 05-01 (fetched exactly at its window_end: complete) and 05-02 (truncated).
  await windowRow('cov', 'visitors', '2024-05-01');
  await windowRow('cov', 'visitors', '2024-05-02');
  await windowRow('cov', 'visitors', '2024-05-03', { status: 'failed' });
  await windowRow('cov', 'visitors', '2024-05-04', { partial: true });
  await windowRow('cov', 'searches', '2024-05-01', { fetchedAt: '2024-05-02 00:00:00+00' });
  await windowRow('cov', 'searches', '2024-05-02', { truncated: true });

  // --- vw: views on 06-01..06-09 except 06-05; human 9d, ai d, total 10d; 06-08 all zero;
  // 06-09 partial. Visitors (site_daily) on 06-01 (5), 06-02 (0), 06-04 (8), 06-08 (4) and
  // 06-09 (30, partial); none on 06-03, 06-06, 06-07.
  for (const d of [1, 2, 3, 4, 6, 7, 8, 9]) {
    const day = `2024-06-0${d}`;
    if (d === 8) await siteDay('site_views_daily', 'vw', day, 0, 0, 0);
    else await siteDay('site_views_daily', 'vw', day, 9 * d, d, 10 * d, d === 9);
  }
  await siteDay('site_daily', 'vw', '2024-06-01', 4, 1, 5);
  await siteDay('site_daily', 'vw', '2024-06-02', 0, 0, 0);
  await siteDay('site_daily', 'vw', '2024-06-04', 6, 2, 8);
  await siteDay('site_daily', 'vw', '2024-06-08', 3, 1, 4);
  await siteDay('site_daily', 'vw', '2024-06-09', 20, 10, 30, true);
  // vw7: 7 consecutive complete days of 7 views.
  for (const day of days('2024-06', 1, 7)) await siteDay('site_views_daily', 'vw7', day, 7, 0, 7);

  // --- sr: search days 06-30..07-28 all loaded (L = 07-28), 07-10 truncated. Last 7 =
  // 07-22..07-28, previous 7 = 07-15..07-21, last 28 = 07-01..07-28; 06-30 is outside.
  await searchDay('sr', '2024-06-30');
  // 07-28 was fetched exactly when it ended: complete.
  for (const day of days('2024-07', 1, 27)) await searchDay('sr', day, day === '2024-07-10');
  await searchDay('sr', '2024-07-28', false, { fetchedAt: '2024-07-29 00:00:00+00' });
  await term('sr', '2024-06-30', 'auth', 100, 0.5, '/old');
  await term('sr', '2024-07-01', 'auth', 30, 0, null);
  await term('sr', '2024-07-10', 'auth', 20, 0.5, '/auth');
  await term('sr', '2024-07-15', 'auth', 4, 0.25, '/auth/keys');
  await term('sr', '2024-07-21', 'auth', 6, 0.5, '/auth');
  await term('sr', '2024-07-22', 'auth', 8, 0.75, '/auth');
  await term('sr', '2024-07-28', 'auth', 12, 0.5, '/auth/sso');
  await term('sr', '2024-07-18', 'deprecated', 5, 0, null);
  await term('sr', '2024-07-25', 'zero', 0, 0, '/z');
  await term('sr', '2024-07-28', 'new', 3, 1, '/new');
  // sr2: 07-15..07-28 but 07-16 missing (previous 7 days incomplete); 07-20 truncated in
  // sync_windows only. sr3: 07-15..07-28 all loaded, 07-28 partial (last 7 days incomplete).
  for (const day of days('2024-07', 15, 28)) {
    if (day !== '2024-07-16') await searchDay('sr2', day, false, { truncated: day === '2024-07-20' });
    await searchDay('sr3', day, false, { partial: day === '2024-07-28' });
  }
  for (const p of ['sr2', 'sr3']) {
    await term(p, '2024-07-15', 'x', 2, 0.5, '/x');
    await term(p, '2024-07-22', 'x', 4, 0.5, '/x');
  }

  // --- ph: visitors 07-31 (outside), 08-01, 08-28 (L); views 07-31 (outside), 08-01, 08-28;
  // searches 08-10..08-12; feedback_by_page never synced.
  for (const day of ['2024-07-31', '2024-08-01', '2024-08-28']) {
    await siteDay('site_daily', 'ph', day, 1, 0, 1);
    await windowRow('ph', 'visitors', day);
    await siteDay('site_views_daily', 'ph', day, 1, 0, 1);
    await windowRow('ph', 'views', day);
  }
  await run(`INSERT INTO page_daily VALUES
    ('ph', DATE '2024-07-31', '/a', 100, 0, 100),
    ('ph', DATE '2024-08-01', '/a', 9, 1, 10),
    ('ph', DATE '2024-08-01', '/b', 3, 0, 3),
    ('ph', DATE '2024-08-28', '/a', 5, 0, 5),
    ('ph', DATE '2024-08-28', '/c', 18, 2, 20)`);
  await run(`INSERT INTO page_views_daily VALUES
    ('ph', DATE '2024-07-31', '/b', 99, 0, 99),
    ('ph', DATE '2024-08-01', '/a', 30, 0, 30),
    ('ph', DATE '2024-08-28', '/c', 40, 10, 50)`);
  for (const day of ['2024-08-10', '2024-08-11', '2024-08-12']) await searchDay('ph', day);
  await term('ph', '2024-08-10', 'q1', 7, 0.5, '/a');
  await term('ph', '2024-08-11', 'q2', 4, 0.5, '/a');
  await term('ph', '2024-08-11', 'q3', 2, 0, null);
  await term('ph', '2024-08-12', 'q4', 6, 1, '/d');
  // ph2: visitors 08-28 only; feedback_by_page windows 08-27 and 08-28, feedback on /x only
  // (total 8: 2 of them of a kind without a column, e.g. agent).
  await siteDay('site_daily', 'ph2', '2024-08-28', 10, 0, 10);
  await windowRow('ph2', 'visitors', '2024-08-28');
  await run(`INSERT INTO page_daily VALUES
    ('ph2', DATE '2024-08-28', '/x', 9, 0, 9),
    ('ph2', DATE '2024-08-28', '/y', 1, 0, 1)`);
  await windowRow('ph2', 'feedback_by_page', '2024-08-27');
  await windowRow('ph2', 'feedback_by_page', '2024-08-28');
  await run(`INSERT INTO feedback_page_daily VALUES ('ph2', DATE '2024-08-28', '/x', 3, 1, 2, 8)`);

  // --- ac: 09-01 (fetched exactly at its window_end), 09-02 all zero, 09-03 partial.
  await run(`INSERT INTO assistant_callers_daily VALUES
    ('ac', DATE '2024-09-01', 6, 3, 1, 10),
    ('ac', DATE '2024-09-02', 0, 0, 0, 0),
    ('ac', DATE '2024-09-03', 1, 1, 2, 4)`);
  await windowRow('ac', 'caller_stats', '2024-09-01', { fetchedAt: '2024-09-02 00:00:00+00' });
  await windowRow('ac', 'caller_stats', '2024-09-02');
  await windowRow('ac', 'caller_stats', '2024-09-03', { partial: true });
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('v_coverage (per project and stream)', () => {
  it('has the stream as second column and keeps the other columns in order', async () => {
    const cols = await rows(
      `SELECT column_name FROM duckdb_columns() WHERE table_name = 'v_coverage' ORDER BY column_index`,
    );
    expect(cols.map((c) => c['column_name'])).toEqual([
      'project_id',
      'stream',
      'first_day',
      'last_day',
      'days_loaded',
      'days_missing',
      'missing_days',
      'days_partial',
      'partial_days',
      'days_truncated',
      'truncated_days',
      'last_loaded_at',
      'windows_loaded',
    ]);
  });

  it('counts the days range windows cover, and a day after the last window start as covered', async () => {
    for (const [start, end] of [
      ['2024-06-03', '2024-06-10'],
      ['2024-06-17', '2024-06-21'],
    ])
      await run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
           api_totals_total, attempts, fetched_at, run_id, error)
         VALUES ('rng', 'assistant', DATE '${start}', DATE '${end}', 'loaded', 1, 1, false, NULL, 1,
           TIMESTAMPTZ '2024-07-01 00:00:00+00', 'stream-views', NULL)`,
      );
    expect(
      await rows(
        `SELECT first_day, last_day, days_loaded, windows_loaded, days_missing FROM v_coverage WHERE project_id = 'rng'`,
      ),
    ).toEqual([
      {
        first_day: '2024-06-03',
        last_day: '2024-06-20',
        days_loaded: 11,
        windows_loaded: 2,
        days_missing: 7,
      },
    ]);
  });

  it('lists missing, partial and truncated days of each stream from sync_windows', async () => {
    expect(
      await rows(
        `SELECT * EXCLUDE (windows_loaded) FROM v_coverage WHERE project_id = 'cov' ORDER BY stream`,
      ),
    ).toEqual([
      {
        project_id: 'cov',
        stream: 'searches',
        first_day: '2024-05-01',
        last_day: '2024-05-02',
        days_loaded: 2,
        days_missing: 0,
        missing_days: [],
        // 05-01 was fetched exactly when it ended: complete, not partial.
        days_partial: 0,
        partial_days: [],
        days_truncated: 1,
        truncated_days: ['2024-05-02'],
        last_loaded_at: '2024-05-03T01:00:00.000Z',
      },
      {
        project_id: 'cov',
        stream: 'visitors',
        first_day: '2024-05-01',
        last_day: '2024-05-04',
        days_loaded: 3,
        // 05-03 has a failed window only: missing.
        days_missing: 1,
        missing_days: ['2024-05-03'],
        days_partial: 1,
        partial_days: ['2024-05-04'],
        days_truncated: 0,
        truncated_days: [],
        last_loaded_at: '2024-05-04T12:00:00.000Z',
      },
    ]);
  });
});

describe('v_views_daily', () => {
  it('gives views, AI share, the 7-day calendar average and views per visitor per day', async () => {
    const r = await rows(
      `SELECT day, human, ai, total, partial, ai_share, total_7d_avg, avg_7d_days, avg_7d_full, views_per_visitor
       FROM v_views_daily WHERE project_id = 'vw' ORDER BY day`,
    );
    const row = (
      day: string,
      d: number,
      avg: number,
      n: number,
      vpv: number | null,
      partial = false,
    ): Row => ({
      day,
      human: 9 * d,
      ai: d,
      total: 10 * d,
      partial,
      ai_share: 0.1,
      total_7d_avg: r9(avg),
      avg_7d_days: n,
      avg_7d_full: false,
      views_per_visitor: vpv,
    });
    expect(rounded(r)).toEqual([
      // 10 views / 5 visitors.
      row('2024-06-01', 1, 10, 1, 2),
      // Visitors total 0: no ratio.
      row('2024-06-02', 2, 15, 2, null),
      // No visitors row that day.
      row('2024-06-03', 3, 20, 3, null),
      row('2024-06-04', 4, 25, 4, 5),
      // 06-05 missing: the window [05-31, 06-06] holds 1, 2, 3, 4, 6.
      row('2024-06-06', 6, (10 + 20 + 30 + 40 + 60) / 5, 5, null),
      row('2024-06-07', 7, (10 + 20 + 30 + 40 + 60 + 70) / 6, 6, null),
      // Window [06-02, 06-08]: 06-01 is out (7 rows back would reach it: 230 / 7).
      {
        day: '2024-06-08',
        human: 0,
        ai: 0,
        total: 0,
        partial: false,
        ai_share: null,
        total_7d_avg: r9((20 + 30 + 40 + 60 + 70 + 0) / 6),
        avg_7d_days: 6,
        avg_7d_full: false,
        views_per_visitor: 0,
      },
      // Partial (and visitors partial): no ratio.
      row('2024-06-09', 9, (30 + 40 + 60 + 70 + 0 + 90) / 6, 6, null, true),
    ]);
  });

  it('calls a 7-day average full only with 7 loaded complete days', async () => {
    const r = await rows(
      `SELECT day, total_7d_avg, avg_7d_days, avg_7d_full, views_per_visitor FROM v_views_daily
       WHERE project_id = 'vw7' AND day >= '2024-06-06' ORDER BY day`,
    );
    expect(r).toEqual([
      { day: '2024-06-06', total_7d_avg: 7, avg_7d_days: 6, avg_7d_full: false, views_per_visitor: null },
      { day: '2024-06-07', total_7d_avg: 7, avg_7d_days: 7, avg_7d_full: true, views_per_visitor: null },
    ]);
  });
});

describe('v_search_terms', () => {
  it('sums hits, weights CTR by hits and compares complete 7-day periods, per term', async () => {
    const r = await rows(`SELECT * FROM v_search_terms WHERE project_id = 'sr' ORDER BY rank`);
    const period = {
      project_id: 'sr',
      last_day: '2024-07-28',
      last_day_partial: false,
      days_loaded_7d: 7,
      days_loaded_prev_7d: 7,
      // 07-01..07-28; 06-30 is outside.
      days_loaded_28d: 28,
      truncated_days_28d: 1,
    };
    expect(rounded(r)).toEqual([
      {
        ...period,
        query: 'auth',
        // Last 7: 07-22 (8) + 07-28 (12); 28 days: 30 + 20 + 4 + 6 + 8 + 12 (06-30's 100 is out).
        hits_7d: 20,
        hits_28d: 80,
        ctr_7d: 0.6, // (8 * 0.75 + 12 * 0.5) / 20
        ctr_28d: 0.325, // (0 + 10 + 1 + 3 + 6 + 6) / 80
        zero_click_share: 0.375, // 07-01's 30 hits had CTR 0: 30 / 80
        // The day with most hits (07-01, 30) has no path: the next one (07-10, 20) gives it.
        top_clicked_path: '/auth',
        hits_prev_7d: 10, // 07-15 (4) + 07-21 (6)
        hits_change_pct: 1,
        seen_on_truncated_day: true, // 07-10
        rank: 1,
      },
      {
        ...period,
        query: 'deprecated',
        // Only in the previous period.
        hits_7d: 0,
        hits_28d: 5,
        ctr_7d: null,
        ctr_28d: 0,
        zero_click_share: 1,
        top_clicked_path: null,
        hits_prev_7d: 5,
        hits_change_pct: -1,
        seen_on_truncated_day: false,
        rank: 2,
      },
      {
        ...period,
        query: 'new',
        hits_7d: 3,
        hits_28d: 3,
        ctr_7d: 1,
        ctr_28d: 1,
        zero_click_share: 0,
        top_clicked_path: '/new',
        hits_prev_7d: 0,
        // No hits before: no change.
        hits_change_pct: null,
        seen_on_truncated_day: false,
        rank: 3,
      },
      {
        ...period,
        query: 'zero',
        // A row with 0 hits: every ratio is NULL, none divides by zero.
        hits_7d: 0,
        hits_28d: 0,
        ctr_7d: null,
        ctr_28d: null,
        zero_click_share: null,
        top_clicked_path: '/z',
        hits_prev_7d: 0,
        hits_change_pct: null,
        seen_on_truncated_day: false,
        rank: 4,
      },
    ]);
  });

  it('gives no change when either 7-day period is incomplete, and ends the periods on the newest complete day (a partial one never)', async () => {
    const r = await rows(
      `SELECT project_id, last_day, last_day_partial, days_loaded_7d, days_loaded_prev_7d, truncated_days_28d,
              hits_7d, hits_prev_7d, hits_change_pct
       FROM v_search_terms WHERE project_id IN ('sr2', 'sr3') ORDER BY project_id`,
    );
    const x = { hits_7d: 4, hits_prev_7d: 2, hits_change_pct: null, last_day_partial: false };
    expect(r).toEqual([
      // 07-16 missing: 6 days before (07-20 truncated too).
      {
        ...x,
        project_id: 'sr2',
        last_day: '2024-07-28',
        days_loaded_7d: 7,
        days_loaded_prev_7d: 6,
        truncated_days_28d: 1,
      },
      // 07-28 partial: it never ends a period, the newest complete day 07-27 does; the 7 days
      // before it start on 07-14, which is not loaded.
      {
        ...x,
        project_id: 'sr3',
        last_day: '2024-07-27',
        days_loaded_7d: 7,
        days_loaded_prev_7d: 6,
        truncated_days_28d: 0,
      },
    ]);
  });
});

describe('v_page_health', () => {
  it('sums visitor-days, views, landing searches per path over the 28 days to the last visitors day', async () => {
    const r = await rows(`SELECT * FROM v_page_health WHERE project_id = 'ph'`);
    const common = {
      project_id: 'ph',
      last_day: '2024-08-28',
      // 08-01..08-28: 07-31 is outside.
      days_loaded: 2,
      views_days_loaded: 2,
      search_days_loaded: 3,
      feedback_days_loaded: 0,
      // feedback_by_page never synced: unknown, not 0.
      thumbs_up: null,
      thumbs_down: null,
      code: null,
      feedback_total: null,
      // Neither feedback nor assistant synced either.
      feedback_windows_loaded: 0,
      assistant_windows_loaded: 0,
      open_feedback: null,
      feedback_thumbs_up: null,
      feedback_thumbs_down: null,
      assistant_citations: null,
    };
    // In the order of the view (by visitor-days).
    expect(r).toEqual([
      { ...common, path: '/c', visitor_days: 20, views: 50, searches_landing: 0, rank: 1 },
      // 10 + 5 (07-31's 100 is out); q1 (7) + q2 (4) landed here; q3 has no path.
      { ...common, path: '/a', visitor_days: 15, views: 30, searches_landing: 11, rank: 2 },
      // 07-31's 99 views are out.
      { ...common, path: '/b', visitor_days: 3, views: 0, searches_landing: 0, rank: 3 },
      // Only a landing page of a search.
      { ...common, path: '/d', visitor_days: 0, views: 0, searches_landing: 6, rank: 4 },
    ]);
  });

  it('gives feedback when feedback_by_page is loaded, and NULL for streams not loaded', async () => {
    const r = await rows(
      `SELECT path, visitor_days, views, searches_landing, feedback_days_loaded, thumbs_up, thumbs_down, code, feedback_total, rank
       FROM v_page_health WHERE project_id = 'ph2'`,
    );
    const none = { views: null, searches_landing: null, feedback_days_loaded: 2 };
    expect(r).toEqual([
      {
        ...none,
        path: '/x',
        visitor_days: 9,
        thumbs_up: 3,
        thumbs_down: 1,
        code: 2,
        feedback_total: 8,
        rank: 1,
      },
      {
        ...none,
        path: '/y',
        visitor_days: 1,
        thumbs_up: 0,
        thumbs_down: 0,
        code: 0,
        feedback_total: 0,
        rank: 2,
      },
    ]);
  });
});

describe('v_assistant_callers_daily', () => {
  it('gives caller shares per day, NULL when the total is 0, and flags a partial day', async () => {
    const r = await rows(`SELECT * FROM v_assistant_callers_daily WHERE project_id = 'ac' ORDER BY day`);
    const zero = { web: 0, api: 0, other: 0, total: 0, web_share: null, api_share: null, other_share: null };
    expect(r).toEqual([
      {
        project_id: 'ac',
        day: '2024-09-01',
        web: 6,
        api: 3,
        other: 1,
        total: 10,
        web_share: 0.6,
        api_share: 0.3,
        other_share: 0.1,
        // Fetched exactly when the day ended: complete.
        partial: false,
      },
      { project_id: 'ac', day: '2024-09-02', ...zero, partial: false },
      {
        project_id: 'ac',
        day: '2024-09-03',
        web: 1,
        api: 1,
        other: 2,
        total: 4,
        web_share: 0.25,
        api_share: 0.25,
        other_share: 0.5,
        partial: true,
      },
    ]);
  });
});

describe('naming', () => {
  it('names no column "visitors" in the stream views (sums of daily uniques are visitor-days)', async () => {
    const cols = await rows(
      `SELECT table_name, column_name FROM duckdb_columns()
       WHERE table_name IN ('v_views_daily', 'v_search_terms', 'v_page_health', 'v_assistant_callers_daily')
         AND column_name LIKE '%visitors%'`,
    );
    expect(cols).toEqual([]);
  });
});
