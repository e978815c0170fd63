import { UsageError } from '../errors.js';
import type { Row, SqlSession } from '../load/session.js';
import { addDays } from '../util/day.js';
import { maskEmails } from '../util/personal-data.js';
import { readEventStream, type EventStreamSection } from './event-stream.js';
import { readGaps, type Gap } from './gaps.js';
import { bothWhole } from './stream-days.js';

/**
 * A week's figure and the week before's. `now` is null when the stream has no loaded day in the
 * week; `before` and `changePct` are null unless both weeks are whole (7 days each, every one in a
 * window fetched after it ended): a week against 2 loaded days, or none, is no change.
 */
export interface Change {
  readonly now: number | null;
  readonly before: number | null;
  readonly changePct: number | null;
  /** Whole days in the week (of 7). */
  readonly days: number;
  /** Whole days in the week before (of 7). */
  readonly daysBefore: number;
}

export interface Mover {
  readonly path: string;
  readonly now: number;
  readonly before: number;
  readonly change: number;
}

export interface Digest {
  readonly projectId: string;
  /** ISO week, e.g. 2026-W47, Monday weekStart to Sunday weekEnd. */
  readonly week: string;
  readonly weekStart: string;
  readonly weekEnd: string;
  readonly visitors: Change;
  readonly views: Change;
  /** null unless both weeks are whole for visitors (no page cap either): nothing moves against days not loaded. */
  readonly moversUp: readonly Mover[] | null;
  readonly moversDown: readonly Mover[] | null;
  readonly topSearches: readonly { query: string; searches: number; ctr: number | null }[];
  /** null unless both weeks are whole for searches: "not such a term the week before" needs that week. */
  readonly newZeroClick: readonly { query: string; searches: number }[] | null;
  readonly feedback: { received: number; thumbsDown: number; comments: number; stillOpen: number } | null;
  readonly assistant: { questions: number; unanswered: number; unansweredPct: number | null } | null;
  readonly gaps: readonly Gap[];
  /**
   * The event stream (sync --events), only when the project has events: true uniques of the week
   * and of the 28 days to its end; traffic, referrers and funnels of the week.
   */
  readonly eventStream?: EventStreamSection;
  readonly fixes: readonly {
    subject: string;
    kind: string;
    verdict: string;
    before: number | null;
    after: number | null;
    prLink: string | null;
  }[];
}

const WEEK_RE = /^(\d{4})-W(\d{2})$/;

/** The Monday of an ISO week `2026-W47`. */
export function isoWeekStart(week: string): string {
  const m = WEEK_RE.exec(week);
  const year = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (m === null || n < 1 || n > 53) {
    throw new UsageError(`--week "${week}" is not an ISO week: use YYYY-Www, e.g. 2026-W47`, { week });
  }
  // Week 1 holds January 4th; its Monday is the first Monday on or before it.
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const monday1 = addDays(jan4.toISOString().slice(0, 10), -((jan4.getUTCDay() + 6) % 7));
  const start = addDays(monday1, 7 * (n - 1));
  if (isoWeekOf(start) !== week) throw new UsageError(`--week "${week}": ${year} has no week ${n}`, { week });
  return start;
}

export function isoWeekOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const thursday = new Date(d.getTime() + (3 - ((d.getUTCDay() + 6) % 7)) * 86_400_000);
  const year = thursday.getUTCFullYear();
  const jan1 = Date.UTC(year, 0, 1);
  const week = Math.floor((thursday.getTime() - jan1) / 86_400_000 / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The last ISO week whose Sunday is complete in visitors, for the project. */
export async function lastCompleteWeek(session: SqlSession, projectId: string): Promise<string | null> {
  const rows = await session.rows(
    `SELECT max(day) AS d FROM site_daily WHERE project_id = $1::VARCHAR AND NOT partial`,
    [projectId],
  );
  const last = rows[0]?.['d'] as string | null | undefined;
  if (last === null || last === undefined) return null;
  const sunday = addDays(last, -new Date(`${last}T00:00:00Z`).getUTCDay());
  return isoWeekOf(sunday);
}

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function change(r: Row | undefined, w: { now: number; before: number; whole: boolean }): Change {
  const now = n(r?.['now']);
  const before = w.whole ? n(r?.['before']) : null;
  const pct =
    now !== null && before !== null && before !== 0
      ? Math.round(((now - before) / before) * 1000) / 10
      : null;
  return { now, before, changePct: pct, days: w.now, daysBefore: w.before };
}

/** Human counts of the week (Monday to Sunday: day < Monday + 7) and of the week before. */
async function totals(
  session: SqlSession,
  table: string,
  stream: string,
  p: string,
  start: string,
): Promise<Change> {
  const rows = await session.rows(
    `SELECT sum(human) FILTER (WHERE day >= $2::DATE)::DOUBLE PRECISION AS now,
       sum(human) FILTER (WHERE day < $2::DATE)::DOUBLE PRECISION AS before
     FROM ${table} WHERE project_id = $1::VARCHAR AND NOT partial AND day >= $2::DATE - 7 AND day < $2::DATE + 7`,
    [p, start],
  );
  return change(rows[0], await bothWhole(session, p, stream, start, 7));
}

async function movers(session: SqlSession, p: string, start: string): Promise<Mover[]> {
  const rows = await session.rows(
    `SELECT path, coalesce(sum(human) FILTER (WHERE day >= $2::DATE), 0)::INTEGER AS now,
       coalesce(sum(human) FILTER (WHERE day < $2::DATE), 0)::INTEGER AS before
     FROM page_daily WHERE project_id = $1::VARCHAR AND day >= $2::DATE - 7 AND day < $2::DATE + 7
     GROUP BY path`,
    [p, start],
  );
  return rows.map((r) => {
    const now = Number(r['now']);
    const before = Number(r['before']);
    return { path: String(r['path']), now, before, change: now - before };
  });
}

async function searches(
  session: SqlSession,
  p: string,
  start: string,
  weekBefore: boolean,
): Promise<Pick<Digest, 'topSearches' | 'newZeroClick'>> {
  // A term's spellings are one row, named by the spelling on most days (ties: code-point order).
  const rows = await session.rows(
    `WITH r AS (
       SELECT question_key(query) AS k, query, day, hits, ctr
       FROM search_daily WHERE project_id = $1::VARCHAR AND day >= $2::DATE - 7 AND day < $2::DATE + 7),
     spelled AS (
       SELECT k, query, row_number() OVER (PARTITION BY k ORDER BY count(*) DESC, query COLLATE "C") AS pick
       FROM r GROUP BY k, query),
     w AS (
       SELECT s.query,
         sum(hits) FILTER (WHERE day >= $2::DATE)::INTEGER AS now,
         sum(hits * coalesce(ctr, 0)) FILTER (WHERE day >= $2::DATE)
           / nullif(sum(hits) FILTER (WHERE day >= $2::DATE), 0)::DOUBLE PRECISION AS ctr,
         sum(hits) FILTER (WHERE day < $2::DATE)::INTEGER AS before,
         sum(hits * coalesce(ctr, 0)) FILTER (WHERE day < $2::DATE)::DOUBLE PRECISION AS clicks_before
       FROM r JOIN spelled AS s ON s.k = r.k AND s.pick = 1
       GROUP BY r.k, s.query)
     SELECT query, now, ctr, before, clicks_before FROM w WHERE now > 0 ORDER BY now DESC, query COLLATE "C"`,
    [p, start],
  );
  const all = rows.map((r) => ({
    query: maskEmails(String(r['query'])),
    searches: Number(r['now']),
    ctr: n(r['ctr']),
    zeroBefore: n(r['before']) !== null && Number(r['before']) >= 5 && Number(r['clicks_before']) === 0,
  }));
  return {
    topSearches: all.slice(0, 5).map(({ query, searches: s, ctr }) => ({ query, searches: s, ctr })),
    newZeroClick: weekBefore
      ? all
          .filter((t) => t.searches >= 5 && t.ctr === 0 && !t.zeroBefore)
          .slice(0, 5)
          .map(({ query, searches: s }) => ({ query, searches: s }))
      : null,
  };
}

async function feedback(session: SqlSession, p: string, start: string): Promise<Digest['feedback']> {
  const rows = await session.rows(
    `SELECT
       (SELECT count(*) FROM sync_windows WHERE project_id = $1::VARCHAR AND stream = 'feedback' AND status = 'loaded')::INTEGER AS windows,
       count(*)::INTEGER AS received,
       count(*) FILTER (WHERE helpful = false)::INTEGER AS down,
       count(*) FILTER (WHERE coalesce(trim(comment), '') <> '')::INTEGER AS comments,
       (SELECT count(*) FROM v_feedback_open WHERE project_id = $1::VARCHAR)::INTEGER AS open
     FROM feedback WHERE project_id = $1::VARCHAR
       AND (created_at AT TIME ZONE 'UTC')::DATE >= $2::DATE AND (created_at AT TIME ZONE 'UTC')::DATE < $2::DATE + 7`,
    [p, start],
  );
  const r = rows[0] ?? {};
  if (Number(r['windows'] ?? 0) === 0) return null;
  return {
    received: Number(r['received']),
    thumbsDown: Number(r['down']),
    comments: Number(r['comments']),
    stillOpen: Number(r['open']),
  };
}

async function assistant(session: SqlSession, p: string, start: string): Promise<Digest['assistant']> {
  const rows = await session.rows(
    `SELECT count(*)::INTEGER AS days, sum(turns)::INTEGER AS q, sum(unanswered)::INTEGER AS u
     FROM v_assistant_daily WHERE project_id = $1::VARCHAR AND day >= $2::DATE AND day < $2::DATE + 7`,
    [p, start],
  );
  const r = rows[0] ?? {};
  if (Number(r['days'] ?? 0) === 0) return null;
  const q = Number(r['q'] ?? 0);
  const u = Number(r['u'] ?? 0);
  return { questions: q, unanswered: u, unansweredPct: q === 0 ? null : Math.round((u / q) * 1000) / 10 };
}

async function fixes(session: SqlSession, p: string): Promise<Digest['fixes']> {
  const rows = await session.rows(
    `SELECT subject, kind, verdict, measure_before, measure_after, pr_link FROM v_gap_outcomes
     WHERE project_id = $1::VARCHAR ORDER BY completed_at DESC, job_id COLLATE "C", gap_id COLLATE "C"`,
    [p],
  );
  return rows.map((r) => ({
    // Recorded when the job was started: masked again, as a record of an older version may hold one.
    subject: maskEmails(String(r['subject'])),
    kind: String(r['kind']),
    verdict: String(r['verdict']),
    before: n(r['measure_before']),
    after: n(r['measure_after']),
    prLink: (r['pr_link'] as string | null) ?? null,
  }));
}

/** The week at a glance for one project; `week` default: its last complete ISO week. */
export async function readDigest(session: SqlSession, projectId: string, week: string): Promise<Digest> {
  const weekStart = isoWeekStart(week);
  const untruncated = { untruncated: true };
  const pagesWhole = (await bothWhole(session, projectId, 'visitors', weekStart, 7, untruncated)).whole;
  const searchesWhole = (await bothWhole(session, projectId, 'searches', weekStart, 7, untruncated)).whole;
  const pages = pagesWhole ? await movers(session, projectId, weekStart) : [];
  const byChange = [...pages].sort((a, b) => b.change - a.change || a.path.localeCompare(b.path));
  const eventStream = await readEventStream(session, {
    projectId,
    to: addDays(weekStart, 6),
    days: 28,
    breakdownDays: 7,
    topReferrers: 5,
  });
  return {
    projectId,
    week,
    weekStart,
    weekEnd: addDays(weekStart, 6),
    visitors: await totals(session, 'site_daily', 'visitors', projectId, weekStart),
    views: await totals(session, 'site_views_daily', 'views', projectId, weekStart),
    moversUp: pagesWhole ? byChange.filter((m) => m.change > 0).slice(0, 5) : null,
    moversDown: pagesWhole
      ? byChange
          .filter((m) => m.change < 0)
          .reverse()
          .slice(0, 5)
      : null,
    ...(await searches(session, projectId, weekStart, searchesWhole)),
    feedback: await feedback(session, projectId, weekStart),
    assistant: await assistant(session, projectId, weekStart),
    gaps: await readGaps(session, { days: 7, to: addDays(weekStart, 7), projectId, limit: 5 }),
    fixes: await fixes(session, projectId),
    ...(eventStream ? { eventStream } : {}),
  };
}
