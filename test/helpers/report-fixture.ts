import { openDatabase } from '../../src/load/database.js';
import { addDays, dayRange } from '../../src/util/day.js';

/**
 * A deterministic database for the report tests: 60 days of site totals and page rows, written
 * through openDatabase (so migrations and views are the real ones) with plain SQL inserts.
 * Every number is a formula of the day index, so tests compute what the report must show.
 */
export const FIXTURE_PROJECT = 'docs-main';
export const FIXTURE_FIRST_DAY = '2026-01-02';
export const FIXTURE_DAYS = 60;
export const FIXTURE_LAST_DAY = addDays(FIXTURE_FIRST_DAY, FIXTURE_DAYS - 1); // 2026-03-02, a Monday

export const NASTY_PATH = `/docs/<script>"x"&'y'`;
export const UNICODE_PATH = '/docs/日本語/ページ-✓';

export interface Counts {
  human: number;
  ai: number;
  total: number;
}

/** Day index i = 0..59. Grows slowly, with a weekend dip, so the trend and the WoW are non-trivial. */
export function siteCounts(i: number): Counts {
  // Day 0 (2026-01-02) is a Friday: i % 7 of 1 and 2 are Saturday and Sunday.
  const weekend = i % 7 === 1 || i % 7 === 2 ? 0.6 : 1;
  const human = Math.round((1000 + 10 * i) * weekend);
  const ai = 200 + 5 * i;
  return { human, ai, total: human + ai - 20 };
}

/** Pages: a steady long tail, one that appears in the last 7 days, one that collapses. */
export const PAGES = [
  '/introduction',
  '/quickstart',
  '/api-reference/users/create',
  NASTY_PATH,
  UNICODE_PATH,
  '/guides/rising',
  '/guides/falling',
  '/changelog',
] as const;

export function pageCounts(path: string, i: number): Counts | undefined {
  const last7 = i >= FIXTURE_DAYS - 7;
  let human: number;
  let ai: number;
  switch (path) {
    case '/introduction':
      human = 300 + i;
      ai = 60;
      break;
    case '/quickstart':
      human = 200;
      ai = 40 + (i % 3);
      break;
    case '/api-reference/users/create':
      human = 80;
      ai = 90;
      break;
    case NASTY_PATH:
      human = 50;
      ai = 5;
      break;
    case UNICODE_PATH:
      human = 30;
      ai = 3;
      break;
    case '/guides/rising':
      if (!last7) return undefined;
      human = 120;
      ai = 30;
      break;
    case '/guides/falling':
      human = last7 ? 10 : 150;
      ai = last7 ? 2 : 20;
      break;
    default:
      human = 5 + (i % 2);
      ai = 1;
  }
  return { human, ai, total: human + ai - 1 };
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export interface FixtureOptions {
  /** Day indexes to leave out (gaps). */
  readonly skip?: readonly number[];
  /** Mark the last day partial. */
  readonly partialLast?: boolean;
}

export async function buildReportFixture(file: string, opts: FixtureOptions = {}): Promise<void> {
  const db = await openDatabase(file);
  try {
    const days = dayRange(FIXTURE_FIRST_DAY, addDays(FIXTURE_LAST_DAY, 1));
    const site: string[] = [];
    const pages: string[] = [];
    const windows: string[] = [];
    days.forEach((day, i) => {
      if (opts.skip?.includes(i)) return;
      const s = siteCounts(i);
      const partial = opts.partialLast === true && i === days.length - 1;
      site.push(
        `(${sqlString(FIXTURE_PROJECT)}, DATE '${day}', ${s.human}, ${s.ai}, ${s.total}, ${partial}, now(), 'fixture')`,
      );
      // What the loader records with each day: fetched after it ended, or during it when partial.
      const fetched = partial
        ? `TIMESTAMPTZ '${day} 12:00:00+00'`
        : `TIMESTAMPTZ '${day} 00:00:00+00' + INTERVAL 2 DAY`;
      windows.push(
        `(${sqlString(FIXTURE_PROJECT)}, 'visitors', DATE '${day}', DATE '${day}' + 1, 'loaded', 1, 1, ${s.total}, 1, ${fetched}, 'fixture')`,
      );
      for (const path of PAGES) {
        const c = pageCounts(path, i);
        if (c)
          pages.push(
            `(${sqlString(FIXTURE_PROJECT)}, DATE '${day}', ${sqlString(path)}, ${c.human}, ${c.ai}, ${c.total})`,
          );
      }
    });
    await db.connection.run(
      `INSERT INTO site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id) VALUES ${site.join(',\n')}`,
    );
    await db.connection.run(
      `INSERT INTO page_daily (project_id, day, path, human, ai, total) VALUES ${pages.join(',\n')}`,
    );
    await db.connection.run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id)
       VALUES ${windows.join(',\n')}`,
    );
  } finally {
    db.close();
  }
}

/** A database with the schema and views but no data. */
export async function buildEmptyDatabase(file: string): Promise<void> {
  const db = await openDatabase(file);
  db.close();
}

/** Sum of one field over day indexes [from, to). */
export function sumSite(field: keyof Counts, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += siteCounts(i)[field];
  return s;
}

export function sumPage(path: string, field: keyof Counts, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += pageCounts(path, i)?.[field] ?? 0;
  return s;
}
