import { openDatabase } from '../../src/load/duckdb/database.js';
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
  /** Load feedback (FEEDBACK_ROWS) with its range windows. */
  readonly feedback?: boolean;
  /** Load assistant turns (assistantTurns) with their range windows. */
  readonly assistant?: boolean;
  /** Load true weekly and monthly uniques (site_weekly, site_monthly). */
  readonly periods?: boolean;
}

/** A contact address that must never appear in a report without --include-personal-data. */
export const SECRET_CONTACT = 'secret.reader@example.com';
export const OTHER_CONTACT = 'another.reader@example.com';
export const NASTY_COMMENT = `<script>alert("x")</script> it's "broken"\nsee line 2`;
export const CONTROL_COMMENT = '\x1b[2Jcleared the screen\u202e';
export const LONG_COMMENT = `This page ${'explains the configuration at great length '.repeat(8)}THE END`;

export interface FeedbackRow {
  id: string;
  path: string;
  source: 'contextual' | 'code_snippet' | 'agent' | 'thumbs_only';
  status: 'pending' | 'in_progress' | 'resolved' | 'dismissed';
  comment: string | null;
  helpful: boolean | null;
  contact: string | null;
  /** Day index and time of day, or null (no created_at). */
  day: number | null;
  time: string;
}

/** Votes of day i: contextual, already dealt with (resolved or dismissed). */
export function votes(i: number): { up: number; down: number } {
  return { up: 2 + (i % 3), down: 1 + (i % 2) };
}

function feedbackRows(): FeedbackRow[] {
  const rows: FeedbackRow[] = [];
  for (let i = 0; i < FIXTURE_DAYS; i++) {
    const v = votes(i);
    for (let k = 0; k < v.up + v.down; k++) {
      rows.push({
        id: `vote-${i}-${k}`,
        path: '/quickstart',
        source: 'contextual',
        status: k % 2 === 0 ? 'resolved' : 'dismissed',
        comment: k < v.up ? 'thanks' : 'CLOSED COMPLAINT',
        helpful: k < v.up,
        contact: k === 0 ? `voter${i}@example.com` : null,
        day: i,
        time: `12:${String(k).padStart(2, '0')}:00`,
      });
    }
  }
  const open = (
    id: string,
    path: string,
    source: FeedbackRow['source'],
    status: FeedbackRow['status'],
    comment: string | null,
    day: number | null,
    extra: Partial<FeedbackRow> = {},
  ): FeedbackRow => ({
    id,
    path,
    source,
    status,
    comment,
    helpful: null,
    contact: null,
    day,
    time: '10:00:00',
    ...extra,
  });
  rows.push(
    open('fb-open-1', '/introduction', 'contextual', 'pending', NASTY_COMMENT, 10, {
      helpful: false,
      contact: SECRET_CONTACT,
    }),
    open('fb-open-2', '/quickstart', 'code_snippet', 'in_progress', 'The curl example lacks a header', 20),
    open('fb-open-3', '/introduction', 'agent', 'pending', CONTROL_COMMENT, 30),
    open('fb-open-4', NASTY_PATH, 'contextual', 'pending', LONG_COMMENT, 55, {
      helpful: true,
      contact: OTHER_CONTACT,
    }),
    open('fb-open-5', '/changelog', 'thumbs_only', 'pending', null, null),
    open('fb-closed-1', '/introduction', 'code_snippet', 'resolved', 'CLOSED ITEM', 5),
    open('fb-closed-2', '/changelog', 'agent', 'dismissed', 'CLOSED ITEM', 58),
  );
  return rows;
}

export const FEEDBACK_ROWS: readonly FeedbackRow[] = feedbackRows();

export interface TurnRow {
  thread: string;
  day: number;
  minute: number;
  query: string;
  responseType: 'answer' | 'clarifying_question';
  resolution: 'answered' | 'unanswered';
}

/** Spellings of one question: the report groups them ignoring case and spacing. */
export const ROTATE_SPELLINGS = [
  'How do I rotate API keys?',
  '  how do i rotate   API KEYS? ',
  'How do I rotate\tapi keys?',
] as const;
export const NASTY_QUESTION = `<script>"q"</script>`;

/**
 * Turns of day i: 8 + i % 3 turns, the first one clarifying; one unanswered rotate question a
 * day, and on even days one more (SSO on days divisible by 4, webhooks on the others).
 */
export function assistantTurns(i: number): TurnRow[] {
  const n = 8 + (i % 3);
  const rows: TurnRow[] = [];
  for (let k = 0; k < n; k++) {
    rows.push({
      thread: `t${i}-${k}`,
      day: i,
      minute: k,
      query: `question ${k}`,
      responseType: k === 0 ? 'clarifying_question' : 'answer',
      resolution: 'answered',
    });
  }
  const unanswered = (k: number, query: string): TurnRow => ({
    thread: `u${i}-${k}`,
    day: i,
    minute: 30 + k,
    query,
    responseType: 'answer',
    resolution: 'unanswered',
  });
  rows.push(unanswered(0, ROTATE_SPELLINGS[i % 3] ?? ''));
  if (i % 2 === 0) rows.push(unanswered(1, i % 4 === 0 ? 'SSO with Okta' : NASTY_QUESTION));
  return rows;
}

/** True uniques of ISO week k (k = 0: the week of Monday 2026-01-05); the week of 2026-03-02 is partial. */
export const WEEK_STARTS = [
  '2026-01-05',
  '2026-01-12',
  '2026-01-19',
  '2026-01-26',
  '2026-02-02',
  '2026-02-09',
  '2026-02-16',
  '2026-02-23',
  '2026-03-02',
] as const;
export function weeklyUniques(k: number): Counts & { partial: boolean } {
  const partial = k === WEEK_STARTS.length - 1;
  const human = partial ? 1100 : 3000 + 80 * k;
  const ai = partial ? 300 : 1200 + 30 * k;
  return { human, ai, total: human + ai - 50, partial };
}
export const MONTHS = [
  { start: '2026-01-01', human: 11000, ai: 4500, total: 15000, partial: false },
  { start: '2026-02-01', human: 12000, ai: 5000, total: 16500, partial: false },
  { start: '2026-03-01', human: 900, ai: 250, total: 1120, partial: true },
] as const;

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
    windows.push(...(await eventStreams(db.connection, opts)));
    await db.connection.run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id)
       VALUES ${windows.join(',\n')}`,
    );
  } finally {
    db.close();
  }
}

const at = (i: number, time: string): string => `TIMESTAMPTZ '${addDays(FIXTURE_FIRST_DAY, i)} ${time}+00'`;
const orNull = (v: string | null): string => (v === null ? 'NULL' : sqlString(v));

/**
 * Rows of the event streams and period grains asked for, and their sync_windows rows: ranges of
 * 10 days over the 60 (the last fetched during its last day when partialLast).
 */
async function eventStreams(
  conn: Awaited<ReturnType<typeof openDatabase>>['connection'],
  opts: FixtureOptions,
): Promise<string[]> {
  const p = sqlString(FIXTURE_PROJECT);
  const windows: string[] = [];
  const ranges = (stream: string): void => {
    for (let s = 0; s < FIXTURE_DAYS; s += 10) {
      const last = s + 10 >= FIXTURE_DAYS;
      const end = addDays(FIXTURE_FIRST_DAY, s + 10);
      const fetched =
        last && opts.partialLast === true
          ? `TIMESTAMPTZ '${FIXTURE_LAST_DAY} 12:00:00+00'`
          : `TIMESTAMPTZ '${end} 00:00:00+00' + INTERVAL 1 DAY`;
      windows.push(
        `(${p}, '${stream}', DATE '${addDays(FIXTURE_FIRST_DAY, s)}', DATE '${end}', 'loaded', 1, 1, NULL, 1, ${fetched}, 'fixture')`,
      );
    }
  };
  if (opts.feedback) {
    ranges('feedback');
    const values = FEEDBACK_ROWS.map(
      (f) =>
        `(${p}, ${sqlString(f.id)}, ${sqlString(f.path)}, '${f.source}', '${f.status}', ${orNull(f.comment)}, ${f.helpful === null ? 'NULL' : String(f.helpful)}, ${orNull(f.contact)}, NULL, NULL, NULL, ${f.day === null ? 'NULL' : at(f.day, f.time)}, now(), now(), 'fixture', DATE '2000-01-01')`,
    );
    await conn.run(`INSERT INTO feedback VALUES ${values.join(',\n')}`);
  }
  if (opts.assistant) {
    ranges('assistant');
    const values: string[] = [];
    for (let i = 0; i < FIXTURE_DAYS; i++) {
      for (const t of assistantTurns(i)) {
        values.push(
          `(${p}, '${t.thread}', ${at(i, `09:${String(t.minute).padStart(2, '0')}:00`)}, ${sqlString(t.query)}, 'an answer', '${t.responseType}', '${t.resolution}', NULL, NULL, [], now(), 'fixture', DATE '2000-01-01')`,
        );
      }
    }
    await conn.run(`INSERT INTO assistant_turns VALUES ${values.join(',\n')}`);
  }
  if (opts.periods) {
    const weeks = WEEK_STARTS.map((start, k) => {
      const c = weeklyUniques(k);
      return `(${p}, DATE '${start}', ${c.human}, ${c.ai}, ${c.total}, ${c.partial}, now(), 'fixture')`;
    });
    await conn.run(`INSERT INTO site_weekly VALUES ${weeks.join(',\n')}`);
    const months = MONTHS.map(
      (m) => `(${p}, DATE '${m.start}', ${m.human}, ${m.ai}, ${m.total}, ${m.partial}, now(), 'fixture')`,
    );
    await conn.run(`INSERT INTO site_monthly VALUES ${months.join(',\n')}`);
    for (const start of WEEK_STARTS) {
      windows.push(
        `(${p}, 'visitors_weekly', DATE '${start}', DATE '${start}' + 7, 'loaded', 1, 1, NULL, 1, TIMESTAMPTZ '${FIXTURE_LAST_DAY} 12:00:00+00', 'fixture')`,
      );
    }
  }
  return windows;
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
