import type { DuckDBConnection } from '@duckdb/node-api';
import { AlertsFixture } from './alerts-fixture.js';

/*
 * A database as a first budget-limited sync leaves it: the newest 9 days of every default stream
 * loaded (2026-02-21 to 03-01), nothing before. The last 7 days (Monday 02-23 to Sunday 03-01,
 * ISO week 2026-W09) are whole; the 7 before (W08) have 2 of 7 days (Saturday and Sunday).
 * Every number is the same each day, so a comparison of the 7 days against those 2 would show
 * +250%, and every gap would be "new" against nothing.
 */
export const FIRST_WEEK_PROJECT = 'docs';
export const FIRST_DAY = '2026-02-21';
/** Exclusive: the last loaded day is 2026-03-01, a Sunday. */
export const END_DAY = '2026-03-02';

export interface DayValues {
  /** Human visitors of the site per day; page '/' gets 3x, '/guide' the same. */
  readonly visitors: number;
  /** Human views of the site per day; page '/' gets them all. */
  readonly views: number;
  /** Searches of 'oauth' per day, none clicked. */
  readonly oauth: number;
}

const FIRST: DayValues = { visitors: 100, views: 400, oauth: 20 };

/**
 * Every default stream over [from, to): windows fetched long after, rows per day. The assistant
 * and feedback windows are one range each, as the event streams load them.
 */
export async function loadDays(
  conn: DuckDBConnection,
  from: string,
  to: string,
  v: DayValues = FIRST,
  p = FIRST_WEEK_PROJECT,
): Promise<void> {
  const fx = new AlertsFixture(conn);
  await fx.visitors(p, from, to, String(v.visitors));
  await fx.pageDays(p, '/', from, to, 3 * v.visitors);
  await fx.pageDays(p, '/guide', from, to, v.visitors);
  await fx.dayWindows(p, 'views', from, to);
  const days = `range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d)`;
  await fx.run(`INSERT INTO site_views_daily (project_id, day, human, ai, total, partial, loaded_at, run_id)
    SELECT '${p}', d::DATE, ${v.views}, 0, ${v.views}, false, TIMESTAMPTZ '2026-06-01', 'r' FROM ${days}`);
  await fx.run(
    `INSERT INTO page_views_daily SELECT '${p}', d::DATE, '/', ${v.views}, 0, ${v.views} FROM ${days}`,
  );
  await fx.dayWindows(p, 'searches', from, to);
  await fx.dayWindows(p, 'caller_stats', from, to);
  await fx.run(
    `INSERT INTO search_daily SELECT '${p}', d::DATE, 'oauth', ${v.oauth}, 0, NULL, NULL FROM ${days}`,
  );
  await fx.window(p, 'assistant', from, to);
  await fx.turns(p, from, to, 3, 2);
  await fx.window(p, 'feedback', from, to);
  for (const day of dayList(from, to)) await fx.feedback(p, day, '/guide', 1);
}

function dayList(from: string, to: string): string[] {
  const out: string[] = [];
  for (
    let d = new Date(`${from}T00:00:00Z`);
    d < new Date(`${to}T00:00:00Z`);
    d = new Date(d.getTime() + 86_400_000)
  )
    out.push(d.toISOString().slice(0, 10));
  return out;
}

/** The first sync: 9 days, the newest first as sync loads them (the order does not matter here). */
export async function firstSync(conn: DuckDBConnection): Promise<void> {
  await loadDays(conn, FIRST_DAY, END_DAY);
}

/**
 * The rest of the week before (2026-02-14 to 02-20: W08 whole, and the 7 days before the report's
 * last 7), with half the visitors and views: then every comparison is fair, and shows +100%.
 */
export async function completeWeekBefore(conn: DuckDBConnection): Promise<void> {
  await loadDays(conn, '2026-02-14', FIRST_DAY, { visitors: 50, views: 200, oauth: 10 });
}
