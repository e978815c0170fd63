import type { MintlifyClient } from '../api/client.js';
import { SearchesResponseSchema, type SearchRow } from '../api/schemas.js';
import { DataShiftError, HttpStatusError } from '../errors.js';
import { CursorGuard } from '../extract/cursor-guard.js';
import { timeOutOfRange, type QualityWarning } from '../extract/quality.js';
import type { JsonTable, TableSpec } from '../load/table-spec.js';
import { jsonChunks } from '../load/window-data.js';
import { readApiTime } from '../util/time.js';
import type { StreamDefinition, StreamFetchOptions, StreamWindow } from './types.js';

const TERMS: JsonTable = {
  table: 'search_daily',
  columns: [
    ['query', 'VARCHAR'],
    ['hits', 'BIGINT'],
    ['ctr', 'DOUBLE'],
    ['top_clicked_path', 'VARCHAR'],
    ['last_searched_at', 'TIMESTAMPTZ'],
  ],
};
const TOTALS: JsonTable = {
  table: 'search_totals_daily',
  columns: [
    ['total_searches', 'BIGINT'],
    ['terms', 'BIGINT'],
    ['truncated', 'BOOLEAN'],
  ],
};
const TABLES: TableSpec = { kind: 'json-days', tables: [TERMS, TOTALS] };
const LIMIT = 100;
const MAX_PASSES = 3;
/** More pages than this for one day is a server that never ends its cursor, not a big site. */
const MAX_PAGES = 10_000;

interface Pass {
  readonly rows: SearchRow[];
  readonly totalSearches: number;
  readonly pages: number;
  readonly truncated: boolean;
}

type PassOutcome = Pass | { shift: string } | { badCursor: HttpStatusError };

/** One pass over a day's cursor sequence; a shift or a refused cursor ends it early. */
async function onePass(client: MintlifyClient, w: StreamWindow, o: StreamFetchOptions): Promise<PassOutcome> {
  const seen = new Set<string>();
  const rows: SearchRow[] = [];
  const guard = new CursorGuard({ label: `${w.projectId} searches ${w.day}` });
  let total: number | undefined;
  let cursor: string | null = null;
  for (let pages = 1; ; pages++) {
    if (pages > MAX_PAGES)
      throw new DataShiftError(`${w.projectId} searches ${w.day}: more than ${MAX_PAGES} pages`);
    const query: Record<string, string> = { dateFrom: w.day, dateTo: w.dateTo, limit: String(LIMIT) };
    if (cursor !== null) query['cursor'] = cursor;
    let page;
    try {
      page = await client.getAnalytics(
        {
          endpoint: 'searches',
          projectId: w.projectId,
          path: 'searches',
          query,
          schema: SearchesResponseSchema,
        },
        {
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.priority !== undefined ? { priority: o.priority } : {}),
        },
      );
    } catch (e) {
      if (cursor !== null && e instanceof HttpStatusError && e.status === 400) return { badCursor: e };
      throw e;
    }
    o.onPage?.();
    if (total === undefined) {
      total = page.totalSearches;
      // Every term was searched at least once: the terms, and so the pages, are bounded by it.
      guard.boundByTotals(total, LIMIT, 'totalSearches');
    } else if (total !== page.totalSearches) return { shift: `totalSearches changed on page ${pages}` };
    // Before the rows: a cursor sent back brings the same terms again, which is no shift of the data.
    const fresh = page.searches.filter((r) => !seen.has(r.searchQuery.toLowerCase())).length;
    guard.page(cursor ?? undefined, fresh, page.nextCursor);
    for (const r of page.searches) {
      // The service groups terms case-insensitively: two rows one case apart are a moved snapshot.
      const key = r.searchQuery.toLowerCase();
      // The term itself is a reader's text: the message, logged and stored, never quotes it.
      if (seen.has(key)) return { shift: `a term appeared twice (page ${pages})` };
      seen.add(key);
      rows.push(r);
    }
    cursor = page.nextCursor;
    if (cursor === null) return { rows, totalSearches: total, pages, truncated: false };
    if (o.maxPages !== undefined && pages >= o.maxPages)
      return { rows, totalSearches: total, pages, truncated: true };
  }
}

/** Passes until one is consistent: a shift is fetched again (bounded), a refused cursor restarts once. */
async function fetchDay(
  client: MintlifyClient,
  w: StreamWindow,
  o: StreamFetchOptions,
): Promise<Pass & { attempts: number }> {
  let restartedForCursor = false;
  let last = '';
  let shifts = 0;
  while (shifts < MAX_PASSES) {
    const r = await onePass(client, w, o);
    if ('rows' in r) return { ...r, attempts: shifts + 1 };
    if ('badCursor' in r) {
      // The server forgot or refused its own cursor: the day starts over once, not as a shift.
      if (restartedForCursor) throw r.badCursor;
      restartedForCursor = true;
      continue;
    }
    last = r.shift;
    shifts++;
  }
  throw new DataShiftError(
    `${w.projectId} searches ${w.day}: the data changed while paging, ${MAX_PASSES} times in a row (${last}); the day was not loaded and will be retried by the next run`,
    { projectId: w.projectId, day: w.day },
  );
}

function checks(pass: Pass): QualityWarning[] {
  const sum = pass.rows.reduce((n, r) => n + r.hits, 0);
  return !pass.truncated && sum > pass.totalSearches
    ? [
        {
          kind: 'searches_total_below_sum_of_hits',
          detail: `totalSearches ${pass.totalSearches} < sum of hits ${sum}`,
        },
      ]
    : [];
}

/**
 * Search terms per day (`/searches`): hits, click-through rate, top clicked page and last time
 * searched per term into search_daily, and the day's total searches, terms and truncation into
 * search_totals_daily. Cursor paging, 100 terms a page, ordered by hits.
 */
export const searches: StreamDefinition = {
  name: 'searches',
  endpoint: 'searches',
  tables: [TERMS.table, TOTALS.table],
  pageSize: LIMIT,
  async fetch(client, w, o) {
    const pass = await fetchDay(client, w, o);
    // The term's counts are the day's whatever its last search time says: an out-of-range time
    // is stored as NULL (the column allows it), so the day's terms still add up to its totals.
    const refused: string[] = [];
    const lastSearched = pass.rows.map((r) => {
      const t = readApiTime(r.lastSearchedAt);
      if ('iso' in t) return t.iso;
      refused.push(t.outOfRange);
      return null;
    });
    return {
      pagesFetched: pass.pages,
      attempts: pass.attempts,
      rows: pass.rows.length,
      warnings: [...checks(pass), ...timeOutOfRange('lastSearchedAt', refused, 'stored as NULL')],
      notes: [],
      truncated: pass.truncated,
      prepare: ({ runId, fetchedAt }) => {
        const terms = pass.rows.map((r, i) => ({
          query: r.searchQuery,
          hits: r.hits,
          ctr: r.ctr,
          top_clicked_path: r.topClickedPage,
          last_searched_at: lastSearched[i] ?? null,
        }));
        const totals = { total_searches: pass.totalSearches, terms: terms.length, truncated: pass.truncated };
        return {
          w: {
            ...w,
            pagesFetched: pass.pages,
            attempts: pass.attempts,
            runId,
            fetchedAt,
            apiTotalsTotal: pass.totalSearches,
            truncated: pass.truncated,
          },
          rows: terms.length,
          spec: TABLES,
          data: { [TERMS.table]: jsonChunks(terms, TERMS), [TOTALS.table]: jsonChunks([totals], TOTALS) },
        };
      },
    };
  },
};
