import pg from 'pg';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { comparePages, type PageDbRow, type SiteRow } from './db.js';
import { byKey } from './streams-truth.js';

/*
 * What a PostgreSQL destination's schema holds, read in the shapes the DuckDB readers of
 * db.ts, streams-truth.ts and events-truth.ts give, so the same truth helpers compare both.
 * Times come out of PLAIN_TYPES as ISO strings and are turned to epoch ms here.
 */

/** Rows of `sql` run with search_path on `schema`, values as PLAIN_TYPES gives them. */
export async function pgRows<T = Record<string, unknown>>(
  url: string,
  schema: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const ms = (v: unknown): number | null => (typeof v === 'string' ? Date.parse(v) : null);

/** site_daily and page_daily as db.ts readData gives them. */
export async function pgData(url: string, schema: string): Promise<{ site: SiteRow[]; pages: PageDbRow[] }> {
  const site = await pgRows<SiteRow>(
    url,
    schema,
    'SELECT project_id, day, human, ai, total FROM site_daily ORDER BY project_id, day',
  );
  const pages = await pgRows<PageDbRow>(
    url,
    schema,
    'SELECT project_id, day, path, human, ai, total FROM page_daily',
  );
  return { site, pages: pages.sort(comparePages) };
}

/** The default day streams' tables as streams-truth.ts `sorted(tables(db))` gives them. */
export async function pgStreamTables(url: string, schema: string) {
  const q = (sql: string) => pgRows(url, schema, sql);
  const terms = await q(
    'SELECT project_id, day, query, hits, ctr, top_clicked_path, last_searched_at FROM search_daily',
  );
  return {
    siteViews: await q('SELECT project_id, day, human, ai, total FROM site_views_daily ORDER BY day'),
    pageViews: (await q('SELECT project_id, day, path, human, ai, total FROM page_views_daily')).sort(
      byKey('day', 'path'),
    ),
    terms: terms
      .map((r) => ({ ...r, last_searched_at: ms(r['last_searched_at']) }))
      .sort(byKey('day', 'query')),
    searchTotals: await q(
      'SELECT project_id, day, total_searches, terms, truncated FROM search_totals_daily ORDER BY day',
    ),
    callers: await q(
      'SELECT project_id, day, web, api, other, total FROM assistant_callers_daily ORDER BY day',
    ),
  };
}

/** feedback as events-truth.ts feedbackRows gives it. */
export async function pgFeedbackRows(url: string, schema: string) {
  const rows = await pgRows(
    url,
    schema,
    `SELECT project_id, id, path, source, status, comment, helpful, contact, code, filename, lang,
            created_at FROM feedback ORDER BY id COLLATE "C"`,
  );
  return rows.map(({ created_at, ...r }) => ({ ...r, created_ms: ms(created_at) }));
}

/** assistant_turns as events-truth.ts turnRows gives them. */
export async function pgTurnRows(url: string, schema: string) {
  const rows = await pgRows(
    url,
    schema,
    `SELECT project_id, thread_id, ts, query, response, response_type, resolution_status,
            query_category, page_url, sources FROM assistant_turns`,
  );
  return rows
    .map(({ ts, sources, ...r }) => ({
      project_id: r['project_id'],
      thread_id: r['thread_id'],
      ts_ms: ms(ts),
      ...r,
      sources: typeof sources === 'string' ? (JSON.parse(sources) as unknown) : sources,
    }))
    .sort(byKey('thread_id', 'ts_ms'));
}

/** assistant_messages as events-truth.ts messageRows gives them. */
export async function pgMessageRows(url: string, schema: string) {
  const rows = await pgRows(
    url,
    schema,
    'SELECT project_id, thread_id, message_id, seq, role, content, created_at FROM assistant_messages',
  );
  return rows
    .map(({ created_at, ...r }) => ({ ...r, created_ms: ms(created_at) }))
    .sort(byKey('thread_id', 'message_id'));
}

/** feedback_page_daily in the shape of the feedbackByPage truth (day, path, counts). */
export async function pgFeedbackByPage(url: string, schema: string) {
  const rows = await pgRows(
    url,
    schema,
    'SELECT day, path, thumbs_up, thumbs_down, code, total FROM feedback_page_daily',
  );
  return rows.sort(byKey('day', 'path'));
}

/** site_weekly: one row a loaded ISO week. */
export async function pgSiteWeekly(url: string, schema: string) {
  return pgRows(
    url,
    schema,
    'SELECT project_id, period_start, human, ai, total FROM site_weekly ORDER BY period_start',
  );
}

/** The first window_start of each range stream, for the event truths' `from`. */
export async function pgRangeStarts(url: string, schema: string): Promise<Map<string, string>> {
  const rows = await pgRows<{ stream: string; start: string }>(
    url,
    schema,
    `SELECT stream, min(window_start)::date::text AS start FROM sync_windows GROUP BY stream`,
  );
  return new Map(rows.map((r) => [r.stream, r.start]));
}
