import { DataShiftError, InternalError, type EtlError } from '../errors.js';
import { addDays, dayNumber } from '../util/day.js';
import { HashedStringSet } from '../util/hashed-string-set.js';
import type { PreparedWindow } from './prepared-window.js';
import { isStorable, storableText } from './storable-text.js';
import type { JsonChunk, JsonTable, SitePageData, TableSpec } from './table-spec.js';
import { jsonChunkBuilder, jsonChunks } from './window-data.js';

/** One fetched window of site and page counts (visitors, views), as `prepareWindow` takes it. */
export interface WindowLoad {
  projectId: string;
  /** 'YYYY-MM-DD' (UTC). */
  day: string;
  /** The window's end, exclusive (default: the next day; a period's end for the period grains). */
  dateTo?: string;
  site: { human: number; ai: number; total: number };
  pages: readonly { path: string; human: number; ai: number; total: number }[];
  /** The day was not over when fetched (--include-today). */
  partial: boolean;
  pagesFetched: number;
  attempts: number;
  runId: string;
  fetchedAt: Date;
  /** `totals.total` as the API reported it (the same on every page of the window). */
  apiTotalsTotal: number;
  /** A --max-pages cap cut the window short (default false). */
  truncated?: boolean;
}

/** The columns of page_daily and page_views_daily besides (project_id, day). */
const PAGE_COLUMNS: JsonTable['columns'] = [
  ['path', 'VARCHAR'],
  ['human', 'BIGINT'],
  ['ai', 'BIGINT'],
  ['total', 'BIGINT'],
];

// Only the four columns: rows may carry fields the loader does not store.
const PAGE_TABLE: JsonTable = { table: 'pages', columns: PAGE_COLUMNS, byColumn: true };

function count(value: number, what: string, w: Pick<WindowLoad, 'projectId' | 'day'>): bigint {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InternalError(
      `window ${w.projectId} ${w.day}: ${what} is ${String(value)}, not a non-negative integer`,
      { projectId: w.projectId, day: w.day },
    );
  }
  return BigInt(value);
}

type PageRowIn = WindowLoad['pages'][number];

/**
 * Checks one window before it joins a batch, so that a bad window is refused on its own instead
 * of failing everyone's transaction: a real day, non-negative integer counts, and no path twice
 * with different counts (identical repeats, a page boundary shown twice, collapse).
 */
export function prepareWindow(
  w: WindowLoad,
  stream = 'visitors',
  spec: TableSpec = VISITOR_SPEC,
): PreparedWindow {
  checkSite(w);
  const seen = new Map<string, PageRowIn>();
  const out: PageRowIn[] = [];
  // Paths that held NUL or a lone surrogate: their U+FFFD form may equal another path of the day.
  const rewrittenPaths = new Set<string>();
  for (const [i, row] of w.pages.entries()) {
    const p = storableRow(row, i, w, seen, rewrittenPaths);
    const before = seen.get(p.path);
    if (before === undefined) {
      checkCounts(p, i, w);
      seen.set(p.path, p);
      out.push(p);
    } else if (before.human !== p.human || before.ai !== p.ai || before.total !== p.total) {
      throw new DataShiftError(
        `window ${w.projectId} ${w.day}: path ${JSON.stringify(p.path)} appears twice with different counts`,
        { projectId: w.projectId, day: w.day, path: p.path },
      );
    }
  }
  return preparedSitePages(w, stream, spec, jsonChunks(out, PAGE_TABLE), out.length);
}

/** The rows of one pass over a window, fed page by page (see `sitePageRows`). */
export interface SitePageRows {
  /** Takes a page's rows; answers why the pages disagree (a path twice), if they do. */
  add(rows: readonly PageRowIn[]): string | undefined;
  /** The pass is over: its load text, and the set of paths is let go. */
  seal(): SealedSitePageRows;
}

export interface SealedSitePageRows {
  readonly rows: number;
  /** `prepareWindow` of these rows: refuses the window the same way, for the same reasons. */
  prepare(w: Omit<WindowLoad, 'pages'>, stream: string, spec: TableSpec): PreparedWindow;
}

/**
 * `prepareWindow` page by page, for a day that arrives in pages (visitors, views): each page is
 * checked and turned into JSON text as it arrives, so that a 600,000-row day is held as text and
 * a set of its paths, never as row objects (issue 19, item 15: 382 MiB peak before). A row it
 * refuses is remembered and refuses the window when it is prepared, as `prepareWindow` would.
 */
export function sitePageRows(where: Pick<WindowLoad, 'projectId' | 'day'>): SitePageRows {
  let paths = new HashedStringSet();
  // Paths that held NUL or a lone surrogate, kept as they are (rare): the text holds their stored form.
  const oddPaths = new Set<string>();
  const rewrittenPaths = new Set<string>();
  const chunks = jsonChunkBuilder(PAGE_TABLE, { spill: true });
  let refused: Error | undefined;
  let rows = 0;
  return {
    add(page) {
      const text: PageRowIn[] = [];
      // A well-formed path whose hash was seen is confirmed in the text (this page's, then the
      // earlier ones'); only an unstorable path's U+FFFD form can be there without the path itself.
      const stored = (path: string): boolean =>
        !rewrittenPaths.has(path) && (text.some((r) => r.path === path) || chunks.includes('path', path));
      const seen = { has: (path: string) => paths.mayHave(path) && stored(path) };
      for (const row of page) {
        const i = rows++;
        if (typeof row.path === 'string') {
          const storable = isStorable(row.path);
          if (storable ? !paths.add(row.path) && stored(row.path) : oddPaths.has(row.path)) {
            return `path ${JSON.stringify(storableText(row.path))} appeared twice`;
          }
          if (!storable) oddPaths.add(row.path);
        }
        // After a refused row the text only serves `stored`: the window will not load.
        text.push(refused === undefined ? checkedRow(row, i, seen) : row);
      }
      chunks.add(text);
      return undefined;
    },
    seal() {
      paths = new HashedStringSet();
      const loaded = chunks.end();
      return {
        rows,
        prepare(w, stream, spec) {
          checkSite(w);
          if (refused !== undefined) throw refused;
          return preparedSitePages(w, stream, spec, loaded, rows);
        },
      };
    },
  };
  function checkedRow(row: PageRowIn, i: number, seen: { has(path: string): boolean }): PageRowIn {
    try {
      const p = storableRow(row, i, where, seen, rewrittenPaths);
      checkCounts(p, i, where);
      return p;
    } catch (e) {
      refused = e instanceof Error ? e : new Error(String(e));
      return row;
    }
  }
}

function checkSite(w: Omit<WindowLoad, 'pages'>): void {
  dayNumber(w.day);
  count(w.site.human, 'site human', w);
  count(w.site.ai, 'site ai', w);
  count(w.site.total, 'site total', w);
  count(w.apiTotalsTotal, 'API totals.total', w);
}

function checkCounts(p: PageRowIn, i: number, w: Pick<WindowLoad, 'projectId' | 'day'>): void {
  count(p.human, `page row ${i} human`, w);
  count(p.ai, `page row ${i} ai`, w);
  count(p.total, `page row ${i} total`, w);
}

/**
 * A row whose path both destinations can store: NUL and a lone UTF-16 surrogate become U+FFFD
 * (storable-text.ts, as every text of every stream) instead of failing the batch, unless that
 * makes it another path of the day.
 */
function storableRow(
  row: PageRowIn,
  i: number,
  w: Pick<WindowLoad, 'projectId' | 'day'>,
  seen: { has(path: string): boolean },
  rewrittenPaths: Set<string>,
): PageRowIn {
  if (typeof row.path !== 'string') {
    throw new InternalError(`window ${w.projectId} ${w.day}: page row ${i} has no path`, {
      projectId: w.projectId,
      day: w.day,
    });
  }
  if (isStorable(row.path)) {
    if (rewrittenPaths.has(row.path)) throw surrogateCollision(w, row.path);
    return row;
  }
  const p = { ...row, path: storableText(row.path) };
  if (seen.has(p.path) || rewrittenPaths.has(p.path)) throw surrogateCollision(w, p.path);
  rewrittenPaths.add(p.path);
  return p;
}

function preparedSitePages(
  w: Omit<WindowLoad, 'pages'>,
  stream: string,
  spec: TableSpec,
  chunks: readonly JsonChunk[],
  rows: number,
): PreparedWindow {
  const { site, pages: _pages, ...meta } = w as WindowLoad;
  const data: SitePageData = { site, chunks };
  return {
    w: { ...meta, stream, dateTo: w.dateTo ?? addDays(w.day, 1), truncated: w.truncated ?? false },
    rows,
    spec,
    data,
  };
}

/**
 * Two distinct API paths that only a lone surrogate told apart would become one row: merging
 * their counts (or keeping one) would be wrong data, so the day fails and keeps its old rows.
 */
function surrogateCollision(w: Pick<WindowLoad, 'projectId' | 'day'>, path: string): EtlError {
  return new InternalError(
    `window ${w.projectId} ${w.day}: path ${JSON.stringify(path)} stands for two API paths that differ only in an unpaired UTF-16 surrogate or a NUL, both stored as U+FFFD; the day is not loaded`,
    { projectId: w.projectId, day: w.day, path },
  );
}

/**
 * The tables of a day stream of site and page counts (visitors: site_daily and page_daily;
 * views: site_views_daily and page_views_daily): each window's site row and page rows replaced
 * as a set.
 */
export function sitePagesSpec(siteTable: string, pageTable: string, dayColumn = 'day'): TableSpec {
  return { kind: 'site-pages', siteTable, pageTable, dayColumn, pages: PAGE_TABLE };
}

export const VISITOR_SPEC = sitePagesSpec('site_daily', 'page_daily');
