import type { Day } from './days.js';
import type { FeedbackCells, FeedbackFilter, FeedbackSource, FeedbackStatus } from './feedback-by-page.js';
import { FEEDBACK_SOURCES, FEEDBACK_STATUSES, statusList } from './feedback-by-page.js';
import type { Random } from './prng.js';
import { mixSeed, mulberry32 } from './prng.js';
import type { DateRange, Refused } from './query-params.js';
import { dateRange, integer, single } from './query-params.js';
import type { SignedCursors } from './signed-cursor.js';

export const FEEDBACK_EVENTS_DEFAULT_LIMIT = 50;
export const FEEDBACK_EVENTS_MAX_LIMIT = 100;

/** The fields every feedback item has, whatever its source. */
export interface FeedbackBase {
  readonly id: string;
  readonly path: string;
  readonly comment: string | null;
  /** ISO 8601, UTC, milliseconds; null for the few undated items. */
  readonly createdAt: string | null;
  readonly status: FeedbackStatus;
}

/** source `contextual`: page-level feedback, helpful (thumbs up) or not, with an optional contact email. */
export interface ContextualFeedback extends FeedbackBase {
  readonly source: 'contextual';
  readonly helpful: boolean;
  readonly contact: string | null;
}

/** source `code_snippet`: feedback on a code block. */
export interface CodeSnippetFeedback extends FeedbackBase {
  readonly source: 'code_snippet';
  readonly code: string;
  readonly filename: string | null;
  readonly lang: string | null;
}

/** source `agent` or `thumbs_only`: the base fields only. */
export interface PlainFeedback extends FeedbackBase {
  readonly source: 'agent' | 'thumbs_only';
}

/** One item of GET /feedback, exactly one of the three shapes of the OpenAPI `anyOf`. */
export type FeedbackItem = ContextualFeedback | CodeSnippetFeedback | PlainFeedback;

export interface FeedbackEventsQuery extends DateRange, FeedbackFilter {
  limit: number;
  /** Serve the items after this one in the order (from the cursor); from the start when undefined. */
  after: FeedbackKey | undefined;
}

export interface FeedbackEventsBody {
  feedback: FeedbackItem[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Where an item sits in the served order. */
export interface FeedbackKey {
  readonly createdAt: string | null;
  readonly id: string;
}

// Kinds as feedback-by-page counts them (kind-major cells: kind * 4 + status).
const KIND_SOURCE: readonly FeedbackSource[] = [
  'contextual',
  'contextual',
  'code_snippet',
  'agent',
  'thumbs_only',
];

const COMMENTS = [
  'This page helped me set it up in minutes.',
  'The example is out of date.',
  'Missing a section on error handling.',
  'Please add a Python example.',
  'Clear and concise, thanks!',
  'The screenshot does not match the dashboard any more.',
  'Broken link in the second paragraph.',
  'I could not find how to rotate the key.',
];

/** Comments that break naive code: unicode, emoji, both quotes, newlines, CSV and SQL characters, the empty string. */
export const ODD_COMMENTS: readonly string[] = Object.freeze([
  '',
  'Très utile — merci ☕',
  '日本語の説明が欲しいです',
  'He said "it\'s broken" and left',
  'line one\nline two\r\nline three',
  '🚀🚀🚀',
  'a,b;c\tTab',
  "'; DROP TABLE feedback; --",
  'back\\slash and %25',
]);

interface Snippet {
  readonly code: string;
  readonly filename: string | null;
  readonly lang: string | null;
}

const SNIPPETS: readonly Snippet[] = [
  { code: 'npm i mintlify', filename: null, lang: 'bash' },
  {
    code: "const client = new Client({ apiKey: process.env.KEY });\nawait client.get('/v1/pages');",
    filename: 'client.ts',
    lang: 'typescript',
  },
  { code: 'curl -H "Authorization: Bearer $KEY" https://api.example.com', filename: null, lang: null },
  { code: 'import requests\nrequests.get(url, timeout=10)', filename: 'main.py', lang: 'python' },
  { code: '{\n  "name": "café ☕"\n}', filename: 'docs.json', lang: 'json' },
  { code: '', filename: 'empty.txt', lang: null },
];

/** A comment from two draws: null a fifth of the time (most thumbs-only votes have none), odd text a third of the rest. */
function comment(source: FeedbackSource, u: number, pick: number): string | null {
  if (u < (source === 'thumbs_only' ? 0.75 : 0.2)) return null;
  const list = u < 0.45 ? ODD_COMMENTS : COMMENTS;
  return list[Math.floor(pick * list.length)] ?? null;
}

function item(
  base: Omit<FeedbackBase, 'status'> & { status: FeedbackStatus },
  kind: number,
  u: number,
  pick: number,
): FeedbackItem {
  const source = KIND_SOURCE[kind] ?? 'agent';
  if (source === 'contextual') {
    const contact = u < 0.3 ? `reader${Math.floor(pick * 500)}@example.com` : null;
    return { ...base, source, helpful: kind === 0, contact };
  }
  if (source === 'code_snippet') {
    const s = SNIPPETS[Math.floor(pick * SNIPPETS.length)] ?? { code: '', filename: null, lang: null };
    return { ...base, source, code: s.code, filename: s.filename, lang: s.lang };
  }
  return { ...base, source };
}

/**
 * One day's feedback items from the day's cells (the ones GET /feedback/by-page counts), so
 * the two endpoints agree: every counted entry is one item with that path, kind and status.
 * Ids are `fb_YYYYMMDD_NNNN` (unique, opaque to clients); each item draws five values.
 */
export function generateFeedbackEvents(
  day: Day,
  cells: readonly FeedbackCells[],
  random: Random,
  fraction: number,
): FeedbackItem[] {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const prefix = `fb_${day.replaceAll('-', '')}_`;
  const out: FeedbackItem[] = [];
  for (const row of cells) {
    row.cells.forEach((count, i) => {
      const kind = Math.floor(i / FEEDBACK_STATUSES.length);
      const status = FEEDBACK_STATUSES[i % FEEDBACK_STATUSES.length] ?? 'pending';
      const source = KIND_SOURCE[kind] ?? 'agent';
      for (let c = 0; c < count; c++) {
        const at = dayStart + Math.floor(random() * 86_400_000 * fraction);
        const text = comment(source, random(), random());
        const id = `${prefix}${String(out.length).padStart(4, '0')}`;
        const base = { id, path: row.path, comment: text, createdAt: new Date(at).toISOString(), status };
        out.push(item(base, kind, random(), random()));
      }
    });
  }
  return out;
}

/** How many undated items a dataset has (the service has a few rows with no createdAt). */
export const UNDATED_FEEDBACK = 4;

/**
 * The undated items: `createdAt: null`, part of no day (so GET /feedback/by-page never counts
 * them). One per source kind, on catalogue paths, with an odd comment or two.
 *
 * Decision (the service documents nothing here): they are served in EVERY dated range's
 * results, after the dated items, as if the service filtered `createdAt IS NULL OR createdAt
 * in [dateFrom, dateTo)`. A client therefore meets them on every sync and must upsert them by
 * key rather than count them once per range.
 */
export function generateUndatedFeedback(seed: number, paths: readonly string[]): FeedbackItem[] {
  const random = mulberry32(mixSeed(seed, 0xfeed0));
  const kinds = [1, 2, 3, 4];
  return kinds.slice(0, UNDATED_FEEDBACK).map((kind, i) => {
    const path = paths[(i * 7 + 2) % Math.max(paths.length, 1)] ?? '/';
    const status = FEEDBACK_STATUSES[i % FEEDBACK_STATUSES.length] ?? 'pending';
    const text = i === 0 ? null : (ODD_COMMENTS[(i * 3) % ODD_COMMENTS.length] ?? null);
    const base = { id: `fb_undated_${i + 1}`, path, comment: text, createdAt: null, status };
    return item(base, kind, random(), random());
  });
}

/** The served order: createdAt descending, ties by id; undated items last, by id. */
export function compareFeedback(a: FeedbackKey, b: FeedbackKey): number {
  if (a.createdAt !== b.createdAt) {
    if (a.createdAt === null) return 1;
    if (b.createdAt === null) return -1;
    return a.createdAt < b.createdAt ? 1 : -1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The by-page kind an item counts as: 0 up, 1 down (contextual), 2 code, 3 agent, 4 thumbs only. */
export function feedbackKind(f: FeedbackItem): number {
  if (f.source === 'contextual') return f.helpful ? 0 : 1;
  return KIND_SOURCE.indexOf(f.source);
}

export function matchesFeedbackFilter(f: FeedbackItem, filter: FeedbackFilter): boolean {
  if (filter.source !== undefined && f.source !== filter.source) return false;
  return filter.status === undefined || filter.status.includes(f.status);
}

export function copyFeedback(f: FeedbackItem): FeedbackItem {
  return { ...f };
}

/** The cursor binds the whole query (range, source, statuses) and the last item served. */
interface CursorFields {
  f: string;
  t: string;
  s: string;
  st: string;
  c: string | null;
  i: string;
}

function filterKey(q: FeedbackFilter): { s: string; st: string } {
  return { s: q.source ?? '', st: q.status ? [...new Set(q.status)].sort().join(',') : '' };
}

/**
 * limit 1..100 (default 50), dates as every analytics endpoint, `source` one of four,
 * `status` a comma-separated list, and a cursor this emulator minted for the same query.
 */
export function parseFeedbackEventsQuery(
  params: URLSearchParams,
  today: Day,
  cursors: SignedCursors,
): { ok: true; query: FeedbackEventsQuery } | Refused {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, FEEDBACK_EVENTS_MAX_LIMIT, details);
  const source = single(params, 'source', details);
  if (source !== undefined && !(FEEDBACK_SOURCES as readonly string[]).includes(source)) {
    details.push(`source must be one of ${FEEDBACK_SOURCES.join(', ')}, got "${source}"`);
  }
  const status = statusList(single(params, 'status', details), details);
  const cursor = single(params, 'cursor', details);
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  const query: FeedbackEventsQuery = {
    ...range,
    limit: limit ?? FEEDBACK_EVENTS_DEFAULT_LIMIT,
    source: source as FeedbackSource | undefined,
    status,
    after: undefined,
  };
  if (cursor === undefined) return { ok: true, query };
  const fields = cursors.decode(cursor) as CursorFields | undefined;
  if (fields === undefined) {
    return { ok: false, error: 'Invalid cursor', details: ['cursor is not a cursor this service issued'] };
  }
  const want = filterKey(query);
  if (
    fields.f !== range.dateFrom ||
    fields.t !== range.dateTo ||
    fields.s !== want.s ||
    fields.st !== want.st
  ) {
    return {
      ok: false,
      error: 'Invalid cursor',
      details: ['cursor was issued for another query (dateFrom, dateTo, source and status must not change)'],
    };
  }
  return { ok: true, query: { ...query, after: { createdAt: fields.c, id: fields.i } } };
}

/**
 * One page of `items` (the range's items in the served order, every status and source): the
 * filter applies, then the page starts after the cursor's item. Paging by position rather
 * than offset, so a status change between two pages moves no other item.
 */
export function feedbackEventsPage(
  items: readonly FeedbackItem[],
  q: FeedbackEventsQuery,
  cursors: SignedCursors,
): FeedbackEventsBody {
  const after = q.after;
  const matching = items.filter(
    (f) => matchesFeedbackFilter(f, q) && (after === undefined || compareFeedback(f, after) > 0),
  );
  const page = matching.slice(0, q.limit).map(copyFeedback);
  const last = page.at(-1);
  const hasMore = matching.length > q.limit && last !== undefined;
  const fields: CursorFields | undefined = last && {
    f: q.dateFrom,
    t: q.dateTo,
    ...filterKey(q),
    c: last.createdAt,
    i: last.id,
  };
  return { feedback: page, nextCursor: hasMore && fields ? cursors.encode(fields) : null, hasMore };
}
