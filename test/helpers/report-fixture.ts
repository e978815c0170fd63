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

export type FixtureStream = 'views' | 'searches' | 'caller_stats';

export interface FixtureOptions {
  /** Day indexes to leave out (gaps). */
  readonly skip?: readonly number[];
  /** Mark the last day partial. */
  readonly partialLast?: boolean;
  /** Streams besides visitors to load, on the same days (default: none, as before they existed). */
  readonly streams?: readonly FixtureStream[];
  /** Day indexes whose search term list a page cap cut short (search_totals_daily.truncated). */
  readonly truncatedSearchDays?: readonly number[];
}

/** Content views of day i: events, so total is human + AI exactly. */
export function viewCounts(i: number): Counts {
  const s = siteCounts(i);
  return { human: 2 * s.human, ai: 3 * s.ai, total: 2 * s.human + 3 * s.ai };
}

/** Views of a page on day i: the visitors rows doubled, so the ranking is the visitors one. */
export function pageViewCounts(path: string, i: number): Counts | undefined {
  const c = pageCounts(path, i);
  return c && { human: 2 * c.human, ai: c.ai, total: 2 * c.human + c.ai };
}

export const NASTY_QUERY = `<script>"x"&'y'`;

export interface SearchCounts {
  hits: number;
  ctr: number;
  path: string | null;
}

/** Search terms: one popular and clicked, one never clicked, one half clicked, one rare, one new. */
export const TERMS = ['authentication', NASTY_QUERY, 'rate limits', 'rare', 'webhooks'] as const;

export function searchCounts(query: string, i: number): SearchCounts | undefined {
  switch (query) {
    case 'authentication':
      return { hits: 30, ctr: 0.5, path: '/guides/auth' };
    case NASTY_QUERY:
      return { hits: 5, ctr: 0, path: null };
    case 'rate limits':
      return { hits: 3, ctr: i % 2 === 0 ? 0.2 : 0, path: '/api-reference/limits' };
    case 'rare':
      return i % 7 === 0 ? { hits: 1, ctr: 0, path: null } : undefined;
    default:
      return i >= FIXTURE_DAYS - 7 ? { hits: 10, ctr: 0.9, path: '/guides/webhooks' } : undefined;
  }
}

/** Searches beyond the listed terms that search_totals_daily still counts. */
export const UNLISTED_SEARCHES = 7;

export function callerCounts(i: number): { web: number; api: number; other: number; total: number } {
  const web = 100 + i;
  const api = 20 + (i % 5);
  return { web, api, other: 5, total: web + api + 5 };
}

/** INSERT value lists of the other streams for one day. */
function streamRows(
  day: string,
  i: number,
  partial: boolean,
  streams: readonly FixtureStream[],
  truncated = false,
): Record<string, string[]> {
  const p = sqlString(FIXTURE_PROJECT);
  const out: Record<string, string[]> = {
    site_views_daily: [],
    page_views_daily: [],
    search_daily: [],
    search_totals_daily: [],
    assistant_callers_daily: [],
  };
  if (streams.includes('views')) {
    const v = viewCounts(i);
    out['site_views_daily']?.push(
      `(${p}, DATE '${day}', ${v.human}, ${v.ai}, ${v.total}, ${partial}, now(), 'fixture')`,
    );
    for (const path of PAGES) {
      const c = pageViewCounts(path, i);
      if (c)
        out['page_views_daily']?.push(
          `(${p}, DATE '${day}', ${sqlString(path)}, ${c.human}, ${c.ai}, ${c.total})`,
        );
    }
  }
  if (streams.includes('searches')) {
    let total = UNLISTED_SEARCHES;
    let terms = 0;
    for (const q of TERMS) {
      const c = searchCounts(q, i);
      if (!c) continue;
      total += c.hits;
      terms += 1;
      out['search_daily']?.push(
        `(${p}, DATE '${day}', ${sqlString(q)}, ${c.hits}, ${c.ctr}, ${c.path === null ? 'NULL' : sqlString(c.path)}, NULL)`,
      );
    }
    out['search_totals_daily']?.push(`(${p}, DATE '${day}', ${total}, ${terms}, ${truncated})`);
  }
  if (streams.includes('caller_stats')) {
    const c = callerCounts(i);
    out['assistant_callers_daily']?.push(`(${p}, DATE '${day}', ${c.web}, ${c.api}, ${c.other}, ${c.total})`);
  }
  return out;
}

export async function buildReportFixture(file: string, opts: FixtureOptions = {}): Promise<void> {
  const db = await openDatabase(file);
  try {
    const days = dayRange(FIXTURE_FIRST_DAY, addDays(FIXTURE_LAST_DAY, 1));
    const site: string[] = [];
    const pages: string[] = [];
    const windows: string[] = [];
    const streams = opts.streams ?? [];
    const others: Record<string, string[]> = {};
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
      for (const stream of ['visitors', ...streams]) {
        windows.push(
          `(${sqlString(FIXTURE_PROJECT)}, '${stream}', DATE '${day}', DATE '${day}' + 1, 'loaded', 1, 1, ${s.total}, 1, ${fetched}, 'fixture')`,
        );
      }
      for (const [table, rows] of Object.entries(
        streamRows(day, i, partial, streams, opts.truncatedSearchDays?.includes(i)),
      )) {
        (others[table] ??= []).push(...rows);
      }
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
    for (const [table, rows] of Object.entries(others)) {
      if (rows.length > 0) await db.connection.run(`INSERT INTO ${table} VALUES ${rows.join(',\n')}`);
    }
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
