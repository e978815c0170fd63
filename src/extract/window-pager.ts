import { DataShiftError, InternalError } from '../errors.js';
import type { Day } from '../util/day.js';
import { checkInvariants, type QualityWarning } from './quality.js';
import type { PageRow, Totals } from './visitor-counts.js';

export interface VisitorsPageLike {
  totals: Totals;
  visitors: PageRow[];
  hasMore: boolean;
}

/** What the pager needs of the API client: one page of one day. */
export interface VisitorsSource {
  getVisitors(
    projectId: string,
    q: { dateFrom: Day; dateTo: Day; limit: number; offset: number },
    o?: { signal?: AbortSignal; priority?: number },
  ): Promise<VisitorsPageLike>;
}

/** One page of any offset-paged day endpoint: totals on every page, rows keyed by path. */
export interface OffsetPage {
  readonly totals: Totals;
  readonly rows: readonly PageRow[];
  readonly hasMore: boolean;
}

/** Fetches the page at `offset` (the stream knows its endpoint and its rows' field name). */
export type OffsetPageSource = (
  offset: number,
  limit: number,
  o: { signal?: AbortSignal; priority?: number },
) => Promise<OffsetPage>;

export interface FetchedWindow {
  readonly projectId: string;
  readonly day: Day;
  readonly site: Totals;
  readonly pages: PageRow[];
  /** Pages requested in the final, consistent pass. */
  readonly pagesFetched: number;
  /** Passes over the window (1 unless the data shifted under pagination). */
  readonly attempts: number;
  readonly warnings: readonly QualityWarning[];
  /** A page (the first one too) said hasMore but carried no rows: logged, the window ends there. */
  readonly emptyPageWithMore: boolean;
  /** `capPages` stopped the window while the server still said hasMore. */
  readonly truncated: boolean;
}

export interface PagerOptions {
  readonly limit?: number;
  /** More pages than this is a server bug, not a big site: fail instead of looping. */
  readonly maxPages?: number;
  /** Passes over a window whose pages disagree before it fails. */
  readonly maxPasses?: number;
  /** --max-pages: stop after this many pages and report the window truncated (loaded, never complete). */
  readonly capPages?: number;
  /** Data-quality checks of the window (default: the unique-visitor invariants). */
  readonly checks?: (site: Totals, rows: readonly PageRow[]) => QualityWarning[];
  readonly signal?: AbortSignal;
  /** Passed to the request budget: the sync gives each day its place in the plan, oldest first. */
  readonly priority?: number;
  /** Called after every page (progress display). */
  readonly onPage?: (page: { projectId: string; day: Day; offset: number; rows: number }) => void;
}

/**
 * Fetches one day's pages in order (offset += limit while hasMore) and checks that they
 * describe one consistent snapshot: the same totals on every page, and no path twice. If
 * they don't, the data moved under the offsets and rows may have been skipped, so the whole
 * window is fetched again (bounded) rather than loaded half right.
 */
export async function fetchWindow(
  source: VisitorsSource,
  projectId: string,
  day: Day,
  dateTo: Day,
  opts: PagerOptions = {},
): Promise<FetchedWindow> {
  const get: OffsetPageSource = async (offset, limit, o) => {
    const page = await source.getVisitors(projectId, { dateFrom: day, dateTo, limit, offset }, o);
    return { totals: page.totals, rows: page.visitors, hasMore: page.hasMore };
  };
  return fetchOffsetWindow(get, projectId, day, opts);
}

/**
 * `fetchWindow` for any offset-paged day endpoint (visitors, views): the same consistency rules,
 * the same bounded re-fetch, every row of the consistent pass kept.
 */
export async function fetchOffsetWindow(
  get: OffsetPageSource,
  projectId: string,
  day: Day,
  opts: PagerOptions = {},
): Promise<FetchedWindow> {
  const { sink, ...f } = await streamOffsetWindow(get, projectId, day, collectRows, opts);
  return { ...f, pages: sink.rows, warnings: (opts.checks ?? checkInvariants)(f.site, sink.rows) };
}

/**
 * Where one pass over a window puts its rows, page by page as they arrive: a new sink per pass.
 * `add` answers why the pages disagree (a path twice) when they do, so that the pass stops.
 */
export interface PassSink {
  add(rows: readonly PageRow[]): string | undefined;
}

/** A window paged into a sink: what `fetchOffsetWindow` returns, with the rows left in the sink. */
export type StreamedWindow<S> = Omit<FetchedWindow, 'pages' | 'warnings'> & { readonly sink: S };

/** Keeps every row (the pager's behaviour for small windows and tests). */
function collectRows(): PassSink & { rows: PageRow[] } {
  const seen = new Set<string>();
  const rows: PageRow[] = [];
  return {
    rows,
    add(page) {
      for (const row of page) {
        if (seen.has(row.path)) return `path ${JSON.stringify(row.path)} appeared twice`;
        seen.add(row.path);
        rows.push(row);
      }
      return undefined;
    },
  };
}

/**
 * The pager with each page handed to a sink as it arrives, so that a day of 600,000 rows need
 * not be held as row objects (issue 19, item 15): the sink keeps what it needs (load text, the
 * paths seen). A pass whose pages disagree is dropped with its sink and the window paged again.
 */
export async function streamOffsetWindow<S extends PassSink>(
  get: OffsetPageSource,
  projectId: string,
  day: Day,
  newSink: () => S,
  opts: PagerOptions = {},
): Promise<StreamedWindow<S>> {
  const limit = opts.limit ?? 250;
  const maxPages = opts.maxPages ?? 10_000;
  const maxPasses = opts.maxPasses ?? 3;
  let lastShift = '';
  for (let pass = 1; pass <= maxPasses; pass++) {
    const result = await onePass(get, projectId, day, { limit, maxPages, sink: newSink() }, opts);
    if ('shift' in result) {
      lastShift = result.shift;
      continue;
    }
    return { ...result, attempts: pass };
  }
  throw new DataShiftError(
    `${projectId} ${day}: the data changed while paging, ${maxPasses} times in a row (${lastShift}); the day was not loaded and will be retried by the next run`,
    { projectId, day, passes: maxPasses },
  );
}

type PassResult<S> = Omit<StreamedWindow<S>, 'attempts'> | { shift: string };

async function onePass<S extends PassSink>(
  get: OffsetPageSource,
  projectId: string,
  day: Day,
  pass: { readonly limit: number; readonly maxPages: number; readonly sink: S },
  opts: PagerOptions,
): Promise<PassResult<S>> {
  const { limit, maxPages, sink } = pass;
  let site: Totals | undefined;
  let emptyPageWithMore = false;
  let truncated = false;
  let pages = 0;
  for (let offset = 0; ; offset += limit) {
    if (pages >= maxPages) {
      throw new InternalError(
        `${projectId} ${day}: more than ${maxPages} pages of ${limit} rows; stopping instead of paging forever (the server keeps saying hasMore)`,
        { projectId, day, pages },
      );
    }
    const page = await get(offset, limit, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    });
    pages++;
    opts.onPage?.({ projectId, day, offset, rows: page.rows.length });
    if (site === undefined) site = page.totals;
    else if (!sameTotals(site, page.totals)) {
      return { shift: `totals changed between offset 0 and offset ${offset}` };
    }
    const shift = sink.add(page.rows);
    if (shift !== undefined) return { shift };
    if (!page.hasMore) break;
    if (page.rows.length === 0) {
      emptyPageWithMore = true;
      break;
    }
    if (opts.capPages !== undefined && pages >= opts.capPages) {
      truncated = true;
      break;
    }
  }
  return {
    projectId,
    day,
    site: site ?? { human: 0, ai: 0, total: 0 },
    sink,
    pagesFetched: pages,
    emptyPageWithMore,
    truncated,
  };
}

function sameTotals(a: Totals, b: Totals): boolean {
  return a.human === b.human && a.ai === b.ai && a.total === b.total;
}
