import type { Day } from './days.js';
import type { Random } from './prng.js';
import { poisson } from './prng.js';
import type { Refused } from './query-params.js';
import { dateRange, integer, single } from './query-params.js';
import type { SearchCursors } from './search-cursor.js';
import { ODD_QUERIES } from './search-terms.js';

export const SEARCHES_DEFAULT_LIMIT = 50;
export const SEARCHES_MAX_LIMIT = 100;

/** One row of GET /searches, as served. */
export interface SearchRow {
  readonly searchQuery: string;
  readonly hits: number;
  /** clicks / hits, in [0, 1]. */
  readonly ctr: number;
  readonly topClickedPage: string | null;
  /** ISO 8601, UTC, milliseconds. */
  readonly lastSearchedAt: string;
}

/** A query's day or range before it is served: clicks kept whole so ranges weight ctr exactly. */
export interface SearchTerm {
  readonly searchQuery: string;
  readonly hits: number;
  readonly clicks: number;
  readonly topClickedPage: string | null;
  readonly lastSearchedAt: string;
}

export interface SearchesResult {
  /** Ordered hits desc, then searchQuery asc (JS string comparison). */
  readonly terms: readonly SearchTerm[];
  /** The sum of every term's hits. */
  readonly totalSearches: number;
}

export interface SearchesQuery {
  dateFrom: Day;
  dateTo: Day;
  limit: number;
  offset: number;
}

export interface SearchesBody {
  searches: SearchRow[];
  totalSearches: number;
  nextCursor: string | null;
}

export const NO_SEARCHES: SearchesResult = Object.freeze({ terms: Object.freeze([]), totalSearches: 0 });

export function compareSearchTerms(a: SearchTerm, b: SearchTerm): number {
  if (a.hits !== b.hits) return b.hits - a.hits;
  return a.searchQuery < b.searchQuery ? -1 : a.searchQuery > b.searchQuery ? 1 : 0;
}

export function toSearchRow(t: SearchTerm): SearchRow {
  return {
    searchQuery: t.searchQuery,
    hits: t.hits,
    ctr: t.hits === 0 ? 0 : t.clicks / t.hits,
    topClickedPage: t.topClickedPage,
    lastSearchedAt: t.lastSearchedAt,
  };
}

export function searchesResult(terms: SearchTerm[]): SearchesResult {
  terms.sort(compareSearchTerms);
  const totalSearches = terms.reduce((s, t) => s + t.hits, 0);
  return Object.freeze({ terms: Object.freeze(terms), totalSearches });
}

interface Draft {
  query: string;
  odd: boolean;
  hits: number;
  clicks: number;
  page: string | null;
  at: number;
}

export interface SearchDayInput {
  /** Queries as users type them, most popular first. */
  vocabulary: readonly string[];
  /** Catalogue paths, most popular first: where clicks land. */
  paths: readonly string[];
  dayStartMs: number;
  /** Searches the day brings before popularity (weekday, growth and the partial today applied). */
  volume: number;
  /** Share of the day that has passed: 1, or less for the current day. */
  fraction: number;
  /** Exactly this many distinct queries (capped at the vocabulary) on an edge day. */
  target: number | undefined;
}

/**
 * One day of searches. Every query draws the same five values whatever it gets, so one
 * query's luck never shifts another's; popularity is Zipf over the vocabulary, each query has
 * its own click-through habit and favourite page, and the odd queries appear whenever anyone
 * searched at all.
 */
export function generateSearchDay(input: SearchDayInput, random: Random): SearchesResult {
  const { vocabulary, paths } = input;
  const harmonic = vocabulary.reduce((s, _q, i) => s + 1 / (i + 1), 0);
  const odd = new Set(ODD_QUERIES);
  const drafts: Draft[] = vocabulary.map((query, i) => {
    const hits = poisson(random, (input.volume * (0.7 + 0.6 * random())) / ((i + 1) * harmonic));
    // SQL-looking text never finds anything worth clicking; other queries' habits vary by rank.
    const habit = query.startsWith("'") ? 0 : 0.15 + 0.7 * (((i * 7919) % 97) / 97);
    const clicks = Math.min(hits, poisson(random, hits * habit));
    const favourite = paths[(i * 31) % Math.min(paths.length, 40)] ?? null;
    const pick = random();
    const other = paths[Math.floor(random() * paths.length)] ?? null;
    const at = input.dayStartMs + Math.floor(random() * 86_400_000 * input.fraction);
    return { query, odd: odd.has(query), hits, clicks, page: pick < 0.75 ? favourite : other, at };
  });
  const anyone = drafts.some((d) => d.hits > 0);
  for (const d of drafts) if (d.odd && anyone && d.hits === 0) d.hits = 1;
  if (input.target !== undefined) forceTermCount(drafts, input.target);
  const terms = drafts
    .filter((d) => d.hits > 0)
    .map((d) => ({
      searchQuery: d.query.toLowerCase(),
      hits: d.hits,
      clicks: d.clicks,
      topClickedPage: d.clicks > 0 ? d.page : null,
      lastSearchedAt: new Date(d.at).toISOString(),
    }));
  return searchesResult(terms);
}

/** Keeps exactly `target` queries: the odd ones first, then the most searched; a forced-in query gets one hit. */
function forceTermCount(drafts: Draft[], target: number): void {
  const order = drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => Number(b.d.odd) - Number(a.d.odd) || b.d.hits - a.d.hits || a.i - b.i);
  order.forEach(({ d }, k) => {
    if (k >= target) {
      d.hits = 0;
      d.clicks = 0;
    } else if (d.hits === 0) {
      d.hits = 1;
      d.clicks = 0;
    }
  });
}

/**
 * Several days: hits and clicks add up (so ctr is hit-weighted), lastSearchedAt is the
 * latest, and topClickedPage is the one of the busiest day that had a click (the later day
 * on a tie), null only when nobody clicked on any day.
 */
export function aggregateSearches(days: readonly SearchesResult[]): SearchesResult {
  if (days.length === 1 && days[0]) return days[0];
  const byQuery = new Map<
    string,
    { hits: number; clicks: number; page: string | null; pageHits: number; at: string }
  >();
  for (const day of days) {
    for (const t of day.terms) {
      const acc = byQuery.get(t.searchQuery) ?? { hits: 0, clicks: 0, page: null, pageHits: 0, at: '' };
      acc.hits += t.hits;
      acc.clicks += t.clicks;
      if (t.topClickedPage !== null && t.hits >= acc.pageHits) {
        acc.page = t.topClickedPage;
        acc.pageHits = t.hits;
      }
      if (t.lastSearchedAt > acc.at) acc.at = t.lastSearchedAt;
      byQuery.set(t.searchQuery, acc);
    }
  }
  return searchesResult(
    [...byQuery].map(([searchQuery, a]) => ({
      searchQuery,
      hits: a.hits,
      clicks: a.clicks,
      topClickedPage: a.page,
      lastSearchedAt: a.at,
    })),
  );
}

/** limit 1..100 (default 50), dates as visitors, and a cursor this emulator issued for the same range. */
export function parseSearchesQuery(
  params: URLSearchParams,
  today: Day,
  cursors: SearchCursors,
): { ok: true; query: SearchesQuery } | Refused {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, SEARCHES_MAX_LIMIT, details);
  const cursor = single(params, 'cursor', details);
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  const query = { ...range, limit: limit ?? SEARCHES_DEFAULT_LIMIT, offset: 0 };
  if (cursor === undefined) return { ok: true, query };
  const decoded = cursors.decode(cursor, range);
  if ('problem' in decoded) return { ok: false, error: 'Invalid cursor', details: [decoded.problem] };
  return { ok: true, query: { ...query, offset: decoded.offset } };
}

export function searchesPage(result: SearchesResult, q: SearchesQuery, cursors: SearchCursors): SearchesBody {
  const end = q.offset + q.limit;
  return {
    searches: result.terms.slice(q.offset, end).map(toSearchRow),
    totalSearches: result.totalSearches,
    nextCursor: end < result.terms.length ? cursors.encode(q, end) : null,
  };
}
