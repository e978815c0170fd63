import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Hand-computed fixtures for the views over the event streams (feedback, assistant) and the period
 * grains (site_weekly, site_monthly), inserted straight into the tables of schema v5 and into
 * sync_windows. Each project tests one view: fb (v_feedback_open, v_feedback_by_page), ad
 * (v_assistant_daily), au (v_assistant_unanswered), pe / pn (v_page_health), wk (v_site_weekly),
 * mo (v_site_monthly). The comments next to each test give the sums.
 */
let cleanup: () => void;
let db: Database;

async function run(sql: string): Promise<void> {
  await db.connection.run(sql);
}

async function rows(sql: string): Promise<Row[]> {
  return queryRows(db.connection, sql);
}

function r9(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/** Numbers rounded to 9 decimals, so that fractions like 2/3 compare exactly. */
function rounded(rs: Row[]): Row[] {
  return rs.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? r9(v) : v])),
  );
}

/** A range window [start, end) of a stream, fetched at 01:00 the day after it ended unless said. */
async function rangeWindow(
  project: string,
  stream: string,
  start: string,
  end: string,
  status: 'loaded' | 'failed' = 'loaded',
  fetchedAt?: string,
): Promise<void> {
  const fetched = fetchedAt !== undefined ? `TIMESTAMPTZ '${fetchedAt}'` : `DATE '${end}' + INTERVAL 1 HOUR`;
  await run(
    `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
       api_totals_total, attempts, fetched_at, run_id, error)
     VALUES ('${project}', '${stream}', DATE '${start}', DATE '${end}', '${status}', 1, 1, false, NULL, 1,
       (${fetched})::TIMESTAMPTZ, 'event-views', NULL)`,
  );
}

function lit(v: string | boolean | null): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return String(v);
  return `'${v.replaceAll("'", "''")}'`;
}

interface Feedback {
  id: string;
  path: string;
  source: 'contextual' | 'code_snippet' | 'agent' | 'thumbs_only';
  status: 'pending' | 'in_progress' | 'resolved' | 'dismissed';
  /** A TIMESTAMPTZ literal, or null for an entry the API gave no date. */
  createdAt: string | null;
  helpful?: boolean;
  comment?: string;
  contact?: string;
  code?: string;
}

async function feedback(project: string, f: Feedback): Promise<void> {
  await run(
    `INSERT INTO feedback VALUES ('${project}', ${lit(f.id)}, ${lit(f.path)}, ${lit(f.source)}, ${lit(f.status)},
       ${lit(f.comment ?? null)}, ${lit(f.helpful ?? null)}, ${lit(f.contact ?? null)}, ${lit(f.code ?? null)},
       ${lit(f.code !== undefined ? 'x.ts' : null)}, ${lit(f.code !== undefined ? 'ts' : null)},
       ${f.createdAt === null ? 'NULL' : `TIMESTAMPTZ '${f.createdAt}'`},
       TIMESTAMPTZ '2024-12-31 00:00:00+00', TIMESTAMPTZ '2025-01-01 00:00:00+00', 'event-views', DATE '2000-01-01')`,
  );
}

interface Turn {
  thread: string;
  ts: string;
  query?: string;
  responseType?: 'answer' | 'clarifying_question';
  resolution?: 'answered' | 'unanswered';
  pageUrl?: string | null;
  sources?: string[];
}

async function turn(project: string, t: Turn): Promise<void> {
  const sources =
    t.sources === undefined || t.sources.length === 0
      ? '[]::STRUCT(title VARCHAR, url VARCHAR)[]'
      : `[${t.sources.map((url) => `{'title': 'T', 'url': ${lit(url)}}`).join(', ')}]`;
  await run(
    `INSERT INTO assistant_turns VALUES ('${project}', ${lit(t.thread)}, TIMESTAMPTZ '${t.ts}',
       ${lit(t.query ?? 'q')}, 'r', ${lit(t.responseType ?? 'answer')}, ${lit(t.resolution ?? 'answered')}, NULL,
       ${lit(t.pageUrl ?? null)}, ${sources}, TIMESTAMPTZ '2025-01-01 00:00:00+00', 'event-views', DATE '2000-01-01')`,
  );
}

/** site_daily rows for every day in [from, to), each with the same counts. */
async function siteDays(
  project: string,
  from: string,
  to: string,
  human: number,
  ai: number,
  partialLast = false,
): Promise<void> {
  await run(
    `INSERT INTO site_daily
     SELECT '${project}', d::DATE, ${human}, ${ai}, ${human + ai}, ${partialLast} AND d::DATE = DATE '${to}' - 1,
       TIMESTAMPTZ '2025-01-01 00:00:00+00', 'event-views'
     FROM generate_series(DATE '${from}'::TIMESTAMP, DATE '${to}'::TIMESTAMP - INTERVAL 1 DAY, INTERVAL 1 DAY) AS g(d)`,
  );
}

async function period(
  table: 'site_weekly' | 'site_monthly',
  project: string,
  start: string,
  human: number,
  ai: number,
  partial = false,
): Promise<void> {
  await run(
    `INSERT INTO ${table} VALUES ('${project}', DATE '${start}', ${human}, ${ai}, ${human + ai}, ${partial},
       TIMESTAMPTZ '2025-06-01 00:00:00+00', 'event-views')`,
  );
}

/**
 * Whole UTC days from `day` to `today`: the view's own today, read in the same statement as its
 * rows, so a test running across midnight cannot see two different days.
 */
function ageDays(day: string, today: string): number {
  return Math.round((Date.parse(today) - Date.parse(day)) / 86_400_000);
}

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'event-views.duckdb'));

  // --- fb: feedback on /a and /b. f3 was sent at 22:10 at UTC-2, i.e. 00:10 UTC on 10-02.
  await feedback('fb', {
    id: 'f1',
    path: '/a',
    source: 'contextual',
    status: 'pending',
    createdAt: '2024-10-01 10:00:00+00',
    helpful: true,
    comment: 'nice',
    contact: 'reader@example.com',
  });
  await feedback('fb', {
    id: 'f2',
    path: '/a',
    source: 'contextual',
    status: 'in_progress',
    createdAt: '2024-10-01 23:30:00+00',
    helpful: false,
    comment: 'wrong port',
    contact: 'other@example.com',
  });
  await feedback('fb', {
    id: 'f3',
    path: '/a',
    source: 'code_snippet',
    status: 'resolved',
    createdAt: '2024-10-01 22:10:00-02',
    code: 'npm i',
  });
  await feedback('fb', { id: 'f4', path: '/b', source: 'agent', status: 'pending', createdAt: null });
  await feedback('fb', {
    id: 'f5',
    path: '/b',
    source: 'thumbs_only',
    status: 'dismissed',
    createdAt: '2024-10-02 05:00:00+00',
  });
  await feedback('fb', {
    id: 'f6',
    path: '/b',
    source: 'contextual',
    status: 'pending',
    createdAt: '2024-09-30 08:00:00+00',
    helpful: false,
  });

  // --- ad: the assistant window [11-01, 11-04) is loaded; thread B spans midnight 11-01/11-02;
  // 11-03 had no conversation. Caller stats are loaded for 11-01 and 11-03 (all 0), not 11-02.
  await rangeWindow('ad', 'assistant', '2024-11-01', '2024-11-04');
  // [11-04, 11-06) fetched at noon on 11-05 (--include-today): 11-05 is partial.
  await rangeWindow('ad', 'assistant', '2024-11-04', '2024-11-06', 'loaded', '2024-11-05 12:00:00+00');
  await turn('ad', { thread: 'C', ts: '2024-11-05 08:00:00+00', resolution: 'unanswered' });
  await turn('ad', { thread: 'A', ts: '2024-11-01 09:00:00+00' });
  await turn('ad', {
    thread: 'A',
    ts: '2024-11-01 09:05:00+00',
    responseType: 'clarifying_question',
    resolution: 'unanswered',
  });
  await turn('ad', { thread: 'B', ts: '2024-11-01 23:59:00+00' });
  await turn('ad', { thread: 'B', ts: '2024-11-02 00:01:00+00', responseType: 'clarifying_question' });
  await run(`INSERT INTO assistant_callers_daily VALUES ('ad', DATE '2024-11-01', 2, 1, 0, 3)`);
  await run(`INSERT INTO assistant_callers_daily VALUES ('ad', DATE '2024-11-03', 0, 0, 0, 0)`);

  // --- au: unanswered questions in three spellings-groups, and one answered one (left out).
  const q = (thread: string, ts: string, query: string, pageUrl: string | null = null) =>
    turn('au', { thread, ts, query, pageUrl, resolution: 'unanswered' });
  await q('T1', '2024-11-05 10:00:00+00', 'How do I login?', 'https://docs.example.com/auth');
  await q('T2', '2024-11-06 10:00:00+00', '  how do i   LOGIN? ');
  await q('T2', '2024-11-07 10:00:00+00', 'How do I login?', 'https://docs.example.com/start');
  await q('T3', '2024-11-06 11:00:00+00', 'rate limits', '/x');
  await q('T3', '2024-11-08 11:00:00+00', 'Rate \t Limits');
  await q('T4', '2024-11-09 12:00:00+00', 'webhooks');
  await turn('au', { thread: 'T5', ts: '2024-11-10 12:00:00+00', query: 'How do I login?' });

  // --- pe: last visitors day L = 12-28, the 28 days are 12-01..12-28. Feedback window
  // [11-20, 12-05) and assistant window [12-20, 12-29) overlap them.
  await siteDays('pe', '2024-12-27', '2024-12-29', 8, 2);
  await run(`INSERT INTO page_daily VALUES ('pe', DATE '2024-12-28', '/guides/x', 4, 1, 5)`);
  await run(`INSERT INTO page_daily VALUES ('pe', DATE '2024-12-28', '/guides/y', 3, 0, 3)`);
  await rangeWindow('pe', 'feedback', '2024-11-20', '2024-12-05');
  await rangeWindow('pe', 'assistant', '2024-12-20', '2024-12-29');
  const pf = (id: string, f: Omit<Feedback, 'id' | 'path'> & { path?: string }) =>
    feedback('pe', { id, path: '/guides/x', ...f });
  await pf('p1', {
    source: 'contextual',
    status: 'pending',
    createdAt: '2024-12-02 09:00:00+00',
    helpful: true,
  });
  await pf('p2', {
    source: 'contextual',
    status: 'resolved',
    createdAt: '2024-12-03 09:00:00+00',
    helpful: false,
  });
  // 11-30 is before the 28 days; an undated entry belongs to no period.
  await pf('p3', { source: 'code_snippet', status: 'in_progress', createdAt: '2024-11-30 23:00:00+00' });
  await pf('p4', { source: 'contextual', status: 'pending', createdAt: null, helpful: true });
  await pf('p5', {
    path: '/guides/z',
    source: 'agent',
    status: 'pending',
    createdAt: '2024-12-10 09:00:00+00',
  });
  const host = 'https://docs.example.com';
  // u1 cites /guides/x twice (once with a slash and a fragment): one citation.
  await turn('pe', {
    thread: 'u1',
    ts: '2024-12-21 09:00:00+00',
    sources: [`${host}/guides/x`, `${host}/guides/x/#intro`, `${host}/guides/y?ref=a`],
  });
  await turn('pe', { thread: 'u2', ts: '2024-12-22 09:00:00+00', sources: [`${host}/guides/x/`] });
  await turn('pe', { thread: 'u3', ts: '2024-12-23 09:00:00+00', sources: [] });
  // Before the 28 days.
  await turn('pe', { thread: 'u4', ts: '2024-11-15 09:00:00+00', sources: [`${host}/guides/y`] });
  // A bare host is the root; another scheme and a fragment.
  await turn('pe', {
    thread: 'u5',
    ts: '2024-12-24 09:00:00+00',
    sources: [host, 'http://docs.example.com/guides/y#top'],
  });
  // Paths are compared exactly: /Guides/X is not /guides/x.
  await turn('pe', { thread: 'u6', ts: '2024-12-25 09:00:00+00', sources: [`${host}/Guides/X`] });

  // --- pn: the same 28 days; the feedback window ends where they begin (12-01 exclusive), the
  // assistant window failed: both unknown, though a feedback entry and a turn lie in the 28 days.
  await siteDays('pn', '2024-12-28', '2024-12-29', 1, 0);
  await run(`INSERT INTO page_daily VALUES ('pn', DATE '2024-12-28', '/a', 1, 0, 1)`);
  await rangeWindow('pn', 'feedback', '2024-11-20', '2024-12-01');
  await rangeWindow('pn', 'assistant', '2024-12-20', '2024-12-29', 'failed');
  await feedback('pn', {
    id: 'n1',
    path: '/a',
    source: 'contextual',
    status: 'pending',
    createdAt: '2024-12-05 09:00:00+00',
    helpful: true,
  });
  await turn('pn', { thread: 'n', ts: '2024-12-21 09:00:00+00', sources: [`${host}/a`] });

  // --- wk: ISO weeks of 2025. W2 (01-06) and W3 (01-13) have all 7 days; W4 (01-20) 3 days, the
  // last partial; W5 (01-27) only a true weekly figure.
  await siteDays('wk', '2025-01-06', '2025-01-13', 80, 20);
  await siteDays('wk', '2025-01-13', '2025-01-20', 88, 22);
  await siteDays('wk', '2025-01-20', '2025-01-23', 80, 20, true);
  await period('site_weekly', 'wk', '2025-01-06', 200, 50);
  await period('site_weekly', 'wk', '2025-01-13', 240, 60);
  await period('site_weekly', 'wk', '2025-01-20', 120, 30, true);
  await period('site_weekly', 'wk', '2025-01-27', 320, 80);

  // --- mo: February (28 days) and March (31) complete; April 29 of 30 days; May only a true figure.
  await siteDays('mo', '2025-02-01', '2025-03-01', 8, 2);
  await siteDays('mo', '2025-03-01', '2025-04-01', 16, 4);
  await siteDays('mo', '2025-04-01', '2025-04-30', 16, 4);
  await period('site_monthly', 'mo', '2025-02-01', 100, 20);
  await period('site_monthly', 'mo', '2025-03-01', 150, 30);
  await period('site_monthly', 'mo', '2025-04-01', 140, 30, true);
  await period('site_monthly', 'mo', '2025-05-01', 160, 40);
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('v_feedback_open', () => {
  it('lists pending and in-progress feedback oldest first, undated last, without the contact email', async () => {
    // status_seen_at: when the status was last read (the row's last_seen_at).
    expect(await rows(`SELECT DISTINCT status_seen_at FROM v_feedback_open WHERE project_id = 'fb'`)).toEqual(
      [{ status_seen_at: '2025-01-01T00:00:00.000Z' }],
    );
    const withToday = await rows(
      `SELECT * EXCLUDE (status_seen_at), strftime((current_timestamp AT TIME ZONE 'UTC')::DATE, '%Y-%m-%d') AS today
       FROM v_feedback_open WHERE project_id = 'fb'`,
    );
    const today = String(withToday[0]?.['today']);
    const r = withToday.map(({ today: _today, ...row }) => row);
    const common = { project_id: 'fb', first_seen_at: '2024-12-31T00:00:00.000Z' };
    expect(r).toEqual([
      {
        ...common,
        id: 'f6',
        path: '/b',
        source: 'contextual',
        status: 'pending',
        helpful: false,
        comment: null,
        created_at: '2024-09-30T08:00:00.000Z',
        age_days: ageDays('2024-09-30', today),
      },
      {
        ...common,
        id: 'f1',
        path: '/a',
        source: 'contextual',
        status: 'pending',
        helpful: true,
        comment: 'nice',
        created_at: '2024-10-01T10:00:00.000Z',
        age_days: ageDays('2024-10-01', today),
      },
      {
        ...common,
        id: 'f2',
        path: '/a',
        source: 'contextual',
        status: 'in_progress',
        helpful: false,
        comment: 'wrong port',
        created_at: '2024-10-01T23:30:00.000Z',
        age_days: ageDays('2024-10-01', today),
      },
      {
        ...common,
        id: 'f4',
        path: '/b',
        source: 'agent',
        status: 'pending',
        helpful: null,
        comment: null,
        created_at: null,
        age_days: null,
      },
    ]);
  });

  it('has no column holding personal data, while the table keeps the emails', async () => {
    const cols = await rows(
      `SELECT column_name FROM duckdb_columns() WHERE table_name LIKE 'v\\_%' ESCAPE '\\' AND column_name = 'contact'`,
    );
    expect(cols).toEqual([]);
    expect(await rows(`SELECT count(contact) AS n FROM feedback WHERE project_id = 'fb'`)).toEqual([
      { n: 2 },
    ]);
  });
});

describe('v_feedback_by_page', () => {
  it('counts thumbs, code snippets, all and open feedback per page and UTC day, undated under day NULL', async () => {
    const r = await rows(
      `SELECT path, day, thumbs_up, thumbs_down, code, total, open FROM v_feedback_by_page
       WHERE project_id = 'fb' ORDER BY path, day NULLS LAST`,
    );
    expect(r).toEqual([
      // f1 (up, pending) and f2 (down, in progress).
      { path: '/a', day: '2024-10-01', thumbs_up: 1, thumbs_down: 1, code: 0, total: 2, open: 2 },
      // f3: 22:10 at UTC-2 on 10-01 is 00:10 UTC on 10-02; resolved.
      { path: '/a', day: '2024-10-02', thumbs_up: 0, thumbs_down: 0, code: 1, total: 1, open: 0 },
      { path: '/b', day: '2024-09-30', thumbs_up: 0, thumbs_down: 1, code: 0, total: 1, open: 1 },
      // f5: thumbs_only counts in total only; dismissed is not open.
      { path: '/b', day: '2024-10-02', thumbs_up: 0, thumbs_down: 0, code: 0, total: 1, open: 0 },
      // f4: no created_at.
      { path: '/b', day: null, thumbs_up: 0, thumbs_down: 0, code: 0, total: 1, open: 1 },
    ]);
  });
});

describe('v_assistant_daily', () => {
  it('counts turns, threads, answered and clarifying per UTC day, with caller counts only where loaded and a partial flag', async () => {
    const r = await rows(`SELECT * FROM v_assistant_daily WHERE project_id = 'ad' ORDER BY day`);
    expect(rounded(r)).toEqual([
      {
        project_id: 'ad',
        day: '2024-11-01',
        turns: 3,
        // A and B.
        threads: 2,
        answered: 2,
        unanswered: 1,
        answered_share: r9(2 / 3),
        clarifying_questions: 1,
        clarifying_share: r9(1 / 3),
        web: 2,
        api: 1,
        other: 0,
        partial: false,
      },
      {
        project_id: 'ad',
        day: '2024-11-02',
        turns: 1,
        // B again: threads do not add up over days.
        threads: 1,
        answered: 1,
        unanswered: 0,
        answered_share: 1,
        clarifying_questions: 1,
        clarifying_share: 1,
        // caller_stats not loaded for the day: unknown, not 0.
        web: null,
        api: null,
        other: null,
        partial: false,
      },
      {
        // Loaded by the assistant window, no conversation: 0 turns, no share; callers loaded, 0.
        project_id: 'ad',
        day: '2024-11-03',
        turns: 0,
        threads: 0,
        answered: 0,
        unanswered: 0,
        answered_share: null,
        clarifying_questions: 0,
        clarifying_share: null,
        web: 0,
        api: 0,
        other: 0,
        partial: false,
      },
      // 11-04: loaded by the second window (fetched after it ended), no conversation.
      {
        project_id: 'ad',
        day: '2024-11-04',
        turns: 0,
        threads: 0,
        answered: 0,
        unanswered: 0,
        answered_share: null,
        clarifying_questions: 0,
        clarifying_share: null,
        web: null,
        api: null,
        other: null,
        partial: false,
      },
      // 11-05: fetched at noon that day: the counts are not final.
      {
        project_id: 'ad',
        day: '2024-11-05',
        turns: 1,
        threads: 1,
        answered: 0,
        unanswered: 1,
        answered_share: 0,
        clarifying_questions: 0,
        clarifying_share: 0,
        web: null,
        api: null,
        other: null,
        partial: true,
      },
    ]);
  });
});

describe('v_assistant_unanswered', () => {
  it('groups unanswered questions by question_key (case, punctuation and white space ignored), most asked first', async () => {
    const r = await rows(`SELECT * FROM v_assistant_unanswered WHERE project_id = 'au'`);
    expect(r).toEqual([
      {
        project_id: 'au',
        rank: 1,
        // The spelling asked twice; the answered turn of T5 is not counted.
        query: 'How do I login?',
        question_key: 'how do i login',
        times_asked: 3,
        threads: 2,
        first_asked: '2024-11-05T10:00:00.000Z',
        last_asked: '2024-11-07T10:00:00.000Z',
        example_page_url: 'https://docs.example.com/start',
      },
      {
        project_id: 'au',
        rank: 2,
        // Each spelling asked once: the one asked last.
        query: 'Rate \t Limits',
        question_key: 'rate limits',
        times_asked: 2,
        threads: 1,
        first_asked: '2024-11-06T11:00:00.000Z',
        last_asked: '2024-11-08T11:00:00.000Z',
        // The latest turn has none: the latest that has one.
        example_page_url: '/x',
      },
      {
        project_id: 'au',
        rank: 3,
        query: 'webhooks',
        question_key: 'webhooks',
        times_asked: 1,
        threads: 1,
        first_asked: '2024-11-09T12:00:00.000Z',
        last_asked: '2024-11-09T12:00:00.000Z',
        example_page_url: null,
      },
    ]);
  });
});

describe('v_page_health with feedback entries and assistant citations', () => {
  it('counts open feedback, thumbs and citing turns of the 28 days, matching source urls by path', async () => {
    const r = await rows(
      `SELECT path, rank, visitor_days, open_feedback, feedback_thumbs_up, feedback_thumbs_down, assistant_citations,
         feedback_windows_loaded, assistant_windows_loaded
       FROM v_page_health WHERE project_id = 'pe'`,
    );
    const loaded = { feedback_windows_loaded: 1, assistant_windows_loaded: 1 };
    expect(r).toEqual([
      // p1 (up, pending), p2 (down, resolved); p3 is before the 28 days, p4 undated. u1 and u2.
      {
        path: '/guides/x',
        rank: 1,
        visitor_days: 5,
        open_feedback: 1,
        feedback_thumbs_up: 1,
        feedback_thumbs_down: 1,
        assistant_citations: 2,
        ...loaded,
      },
      // u1 (?ref=a) and u5 (http, #top); u4 is before the 28 days.
      {
        path: '/guides/y',
        rank: 2,
        visitor_days: 3,
        open_feedback: 0,
        feedback_thumbs_up: 0,
        feedback_thumbs_down: 0,
        assistant_citations: 2,
        ...loaded,
      },
      // Rows of their own: cited only (the bare host of u5, and u6's /Guides/X), or feedback only (p5).
      {
        path: '/',
        rank: 3,
        visitor_days: 0,
        open_feedback: 0,
        feedback_thumbs_up: 0,
        feedback_thumbs_down: 0,
        assistant_citations: 1,
        ...loaded,
      },
      {
        path: '/Guides/X',
        rank: 4,
        visitor_days: 0,
        open_feedback: 0,
        feedback_thumbs_up: 0,
        feedback_thumbs_down: 0,
        assistant_citations: 1,
        ...loaded,
      },
      {
        path: '/guides/z',
        rank: 5,
        visitor_days: 0,
        open_feedback: 1,
        feedback_thumbs_up: 0,
        feedback_thumbs_down: 0,
        assistant_citations: 0,
        ...loaded,
      },
    ]);
  });

  it('gives NULL, not 0, when no loaded window of the stream overlaps the 28 days', async () => {
    const r = await rows(
      `SELECT path, open_feedback, feedback_thumbs_up, feedback_thumbs_down, assistant_citations,
         feedback_windows_loaded, assistant_windows_loaded
       FROM v_page_health WHERE project_id = 'pn'`,
    );
    // The feedback window [11-20, 12-01) ends as the 28 days begin; the assistant one failed.
    expect(r).toEqual([
      {
        path: '/a',
        open_feedback: null,
        feedback_thumbs_up: null,
        feedback_thumbs_down: null,
        assistant_citations: null,
        feedback_windows_loaded: 0,
        assistant_windows_loaded: 0,
      },
    ]);
  });
});

describe('v_site_weekly with true weekly uniques', () => {
  it('shows the true uniques of a week beside its visitor-days, and a week known only by its true figure', async () => {
    const r = rounded(
      await rows(
        `SELECT iso_week, week_start, days, complete, human_visitor_days, ai_visitor_days, total_visitor_days,
         total_visitor_days_change_pct, human, ai, total, uniques_partial, uniques_source, total_change_pct
       FROM v_site_weekly WHERE project_id = 'wk' ORDER BY week_start`,
      ),
    );
    expect(r).toEqual([
      {
        iso_week: 2,
        week_start: '2025-01-06',
        days: 7,
        complete: true,
        // 7 x 100 visitor-days, but 250 people: the true total is well below the sum.
        human_visitor_days: 560,
        ai_visitor_days: 140,
        total_visitor_days: 700,
        total_visitor_days_change_pct: null,
        human: 200,
        ai: 50,
        total: 250,
        uniques_partial: false,
        uniques_source: 'period',
        // No week before.
        total_change_pct: null,
      },
      {
        iso_week: 3,
        week_start: '2025-01-13',
        days: 7,
        complete: true,
        human_visitor_days: 616,
        ai_visitor_days: 154,
        total_visitor_days: 770,
        // 770 / 700 - 1
        total_visitor_days_change_pct: r9(0.1),
        human: 240,
        ai: 60,
        total: 300,
        uniques_partial: false,
        uniques_source: 'period',
        // 300 / 250 - 1
        total_change_pct: 0.2,
      },
      {
        iso_week: 4,
        week_start: '2025-01-20',
        days: 3,
        complete: false,
        human_visitor_days: 240,
        ai_visitor_days: 60,
        total_visitor_days: 300,
        total_visitor_days_change_pct: null,
        human: 120,
        ai: 30,
        total: 150,
        // Fetched before the week was over: no change against a whole week.
        uniques_partial: true,
        uniques_source: 'period',
        total_change_pct: null,
      },
      {
        // No day of the week in site_daily: visitor-days unknown.
        iso_week: 5,
        week_start: '2025-01-27',
        days: 0,
        complete: false,
        human_visitor_days: null,
        ai_visitor_days: null,
        total_visitor_days: null,
        total_visitor_days_change_pct: null,
        human: 320,
        ai: 80,
        total: 400,
        uniques_partial: false,
        uniques_source: 'period',
        // The week before is partial.
        total_change_pct: null,
      },
    ]);
  });
});

describe('v_site_monthly', () => {
  it('sums visitor-days per calendar month beside its true uniques, changes only between whole months', async () => {
    const r = await rows(
      `SELECT year, month, month_start, days, days_in_month, complete, has_partial_day, human_visitor_days,
         total_visitor_days, total_visitor_days_change_pct, human, ai, total, uniques_partial, uniques_source,
         total_change_pct
       FROM v_site_monthly WHERE project_id = 'mo' ORDER BY month_start`,
    );
    expect(rounded(r)).toEqual([
      {
        year: 2025,
        month: 2,
        month_start: '2025-02-01',
        days: 28,
        days_in_month: 28,
        complete: true,
        has_partial_day: false,
        human_visitor_days: 224,
        total_visitor_days: 280,
        total_visitor_days_change_pct: null,
        human: 100,
        ai: 20,
        total: 120,
        uniques_partial: false,
        uniques_source: 'period',
        total_change_pct: null,
      },
      {
        year: 2025,
        month: 3,
        month_start: '2025-03-01',
        days: 31,
        days_in_month: 31,
        complete: true,
        has_partial_day: false,
        human_visitor_days: 496,
        total_visitor_days: 620,
        // 620 / 280 - 1
        total_visitor_days_change_pct: r9(340 / 280),
        human: 150,
        ai: 30,
        total: 180,
        uniques_partial: false,
        uniques_source: 'period',
        // 180 / 120 - 1
        total_change_pct: 0.5,
      },
      {
        // 29 of 30 days loaded; the true figure fetched before the month was over.
        year: 2025,
        month: 4,
        month_start: '2025-04-01',
        days: 29,
        days_in_month: 30,
        complete: false,
        has_partial_day: false,
        human_visitor_days: 464,
        total_visitor_days: 580,
        total_visitor_days_change_pct: null,
        human: 140,
        ai: 30,
        total: 170,
        uniques_partial: true,
        uniques_source: 'period',
        total_change_pct: null,
      },
      {
        year: 2025,
        month: 5,
        month_start: '2025-05-01',
        days: 0,
        days_in_month: 31,
        complete: false,
        has_partial_day: false,
        human_visitor_days: null,
        total_visitor_days: null,
        total_visitor_days_change_pct: null,
        human: 160,
        ai: 40,
        total: 200,
        uniques_partial: false,
        uniques_source: 'period',
        // April is partial.
        total_change_pct: null,
      },
    ]);
  });

  it('gives NULL true uniques and source for a month without a site_monthly row', async () => {
    const r = await rows(
      `SELECT month_start, days, total_visitor_days, total, uniques_partial, uniques_source, total_change_pct
       FROM v_site_monthly WHERE project_id = 'wk' ORDER BY month_start`,
    );
    // wk has site_daily days in January 2025 and only weekly figures.
    expect(r).toEqual([
      {
        month_start: '2025-01-01',
        days: 17,
        total_visitor_days: 700 + 770 + 300,
        total: null,
        uniques_partial: null,
        uniques_source: null,
        total_change_pct: null,
      },
    ]);
  });
});

describe('naming', () => {
  it('names no column of the new views "visitors" (sums of daily uniques are visitor-days)', async () => {
    const cols = await rows(
      `SELECT table_name, column_name FROM duckdb_columns()
       WHERE table_name IN ('v_site_weekly', 'v_site_monthly', 'v_page_health', 'v_feedback_open',
         'v_feedback_by_page', 'v_assistant_daily', 'v_assistant_unanswered')
         AND column_name LIKE '%visitors%'`,
    );
    expect(cols).toEqual([]);
  });
});
