import type { PageRow } from './page-counts.js';
import type { Random } from './prng.js';
import { poisson } from './prng.js';
import type { Refused } from './query-params.js';
import { dateRange, integer, single } from './query-params.js';

export const FEEDBACK_DEFAULT_LIMIT = 10;
export const FEEDBACK_MAX_LIMIT = 100;

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/**
 * What feedback entries are: contextual ones are helpful (thumbs up) or not (thumbs down),
 * the rest count only towards `total`. Cells are kept per kind x status so the `source` and
 * `status` filters can be answered from the same data.
 */
const KINDS = ['up', 'down', 'code', 'agent', 'thumbs'] as const;
const KIND_SOURCE: readonly FeedbackSource[] = [
  'contextual',
  'contextual',
  'code_snippet',
  'agent',
  'thumbs_only',
];
const KIND_SHARE = [0.45, 0.2, 0.15, 0.05, 0.15];
const CELLS = KINDS.length * FEEDBACK_STATUSES.length;

/** One row of GET /feedback/by-page, as served. */
export interface FeedbackRow {
  readonly path: string;
  readonly thumbsUp: number;
  readonly thumbsDown: number;
  readonly code: number;
  readonly total: number;
}

/** A path's feedback entries, counted per kind x status (kind-major). */
export interface FeedbackCells {
  readonly path: string;
  readonly cells: readonly number[];
}

export interface FeedbackFilter {
  source?: FeedbackSource | undefined;
  /** Any of these statuses; every status when omitted. */
  status?: readonly FeedbackStatus[] | undefined;
}

export interface FeedbackQuery extends FeedbackFilter {
  dateFrom: string;
  dateTo: string;
  limit: number;
}

export interface FeedbackBody {
  feedback: FeedbackRow[];
  hasMore: boolean;
}

/** Splits `n` entries over the four statuses from one draw, so the draw count never varies. */
function splitByStatus(n: number, u: number): number[] {
  const pending = Math.floor(n * (0.2 + 0.4 * u));
  const inProgress = Math.floor((n - pending) * 0.25);
  const resolved = Math.floor((n - pending - inProgress) * 0.7);
  return [pending, inProgress, resolved, n - pending - inProgress - resolved];
}

/**
 * One day from the day's view rows: feedback lands only on pages someone viewed, about one
 * entry per 250 views. `target` (an edge day) makes exactly that many pages carry feedback
 * (capped at the viewed pages), the most viewed first; a forced-in page gets one thumbs up.
 */
export function generateFeedbackDay(
  viewRows: readonly PageRow[],
  random: Random,
  target: number | undefined,
): FeedbackCells[] {
  const all = viewRows.map((v) => {
    const mean = v.total * 0.004 * (0.5 + random());
    const cells: number[] = [];
    KINDS.forEach((_kind, k) => {
      const n = poisson(random, mean * (KIND_SHARE[k] ?? 0));
      cells.push(...splitByStatus(n, random()));
    });
    return { path: v.path, cells };
  });
  if (target !== undefined) {
    all.forEach((row, i) => {
      if (i >= target) row.cells.fill(0);
      else if (!row.cells.some((c) => c > 0)) row.cells[0] = 1;
    });
  }
  return all.filter((r) => r.cells.some((c) => c > 0));
}

/** Several days: every cell adds up per path. */
export function aggregateFeedback(days: readonly (readonly FeedbackCells[])[]): FeedbackCells[] {
  const byPath = new Map<string, number[]>();
  for (const day of days) {
    for (const r of day) {
      const acc = byPath.get(r.path) ?? new Array<number>(CELLS).fill(0);
      r.cells.forEach((c, i) => (acc[i] = (acc[i] ?? 0) + c));
      byPath.set(r.path, acc);
    }
  }
  return [...byPath].map(([path, cells]) => ({ path, cells }));
}

export function compareFeedbackRows(a: FeedbackRow, b: FeedbackRow): number {
  if (a.total !== b.total) return b.total - a.total;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Rows as served for a filter: pages with no matching entry drop out; total desc, then path asc. */
export function feedbackRows(cells: readonly FeedbackCells[], filter: FeedbackFilter = {}): FeedbackRow[] {
  const rows: FeedbackRow[] = [];
  for (const r of cells) {
    const sum = [0, 0, 0, 0, 0];
    r.cells.forEach((c, i) => {
      const k = Math.floor(i / FEEDBACK_STATUSES.length);
      const status = FEEDBACK_STATUSES[i % FEEDBACK_STATUSES.length] ?? 'pending';
      if (filter.source !== undefined && KIND_SOURCE[k] !== filter.source) return;
      if (filter.status !== undefined && !filter.status.includes(status)) return;
      sum[k] = (sum[k] ?? 0) + c;
    });
    const [up = 0, down = 0, code = 0, agent = 0, thumbs = 0] = sum;
    const total = up + down + code + agent + thumbs;
    if (total > 0) rows.push({ path: r.path, thumbsUp: up, thumbsDown: down, code, total });
  }
  return rows.sort(compareFeedbackRows);
}

/** The first `limit` rows; hasMore says more exist that no request can fetch (no cursor, no offset). */
export function feedbackPage(rows: readonly FeedbackRow[], limit: number): FeedbackBody {
  return { feedback: rows.slice(0, limit).map((r) => ({ ...r })), hasMore: rows.length > limit };
}

/** The `status` parameter: a comma-separated list of known statuses, else a problem in `details`. */
export function statusList(text: string | undefined, details: string[]): FeedbackStatus[] | undefined {
  if (text === undefined) return undefined;
  const items = text.split(',').map((s) => s.trim());
  const known = new Set<string>(FEEDBACK_STATUSES);
  if (items.some((s) => !known.has(s))) {
    details.push(`status must be a comma-separated list of ${FEEDBACK_STATUSES.join(', ')}, got "${text}"`);
    return undefined;
  }
  return items as FeedbackStatus[];
}

/** limit 1..100 (default 10), dates as visitors, optional `source` and `status` filters. */
export function parseFeedbackQuery(
  params: URLSearchParams,
  today: string,
): { ok: true; query: FeedbackQuery } | Refused {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, FEEDBACK_MAX_LIMIT, details);
  const source = single(params, 'source', details);
  if (source !== undefined && !(FEEDBACK_SOURCES as readonly string[]).includes(source)) {
    details.push(`source must be one of ${FEEDBACK_SOURCES.join(', ')}, got "${source}"`);
  }
  const status = statusList(single(params, 'status', details), details);
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  return {
    ok: true,
    query: {
      ...range,
      limit: limit ?? FEEDBACK_DEFAULT_LIMIT,
      source: source as FeedbackSource | undefined,
      status,
    },
  };
}
