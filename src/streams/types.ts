import type { MintlifyClient } from '../api/client.js';
import type { PlanOptions, PlannedWindow, ProjectPlan, ProjectState, WindowItem } from '../extract/plan.js';
import type { Destination } from '../load/destination.js';
import type { QualityWarning } from '../extract/quality.js';
import type { PreparedWindow } from '../load/prepared-window.js';
import type { Day } from '../util/day.js';

/** One window of one stream for one project: the request range [day, dateTo). */
export interface StreamWindow {
  readonly projectId: string;
  readonly stream: string;
  readonly day: Day;
  readonly dateTo: Day;
  /** The window is not over yet (--include-today): its counts are still growing. */
  readonly partial: boolean;
  /** A window of one keyed record (an assistant thread) rather than of days. */
  readonly item?: WindowItem | undefined;
}

export interface StreamFetchOptions {
  readonly signal?: AbortSignal;
  /** The request budget serves lower numbers first (the plan's order). */
  readonly priority?: number;
  /** Called after every page that arrived (progress, admission, the project gate). */
  readonly onPage?: () => void;
  /** --max-pages for this stream: stop after this many pages and record the window truncated. */
  readonly maxPages?: number;
  /** --period-pages: the period streams fetch every page's uniques, not only the site's. */
  readonly periodPages?: boolean;
}

/** What a stream planned from loaded rows needs beyond the database (see `planAfterLoads`). */
export interface LatePlanOptions {
  /** --max-threads: most windows of the stream per project and run. */
  readonly maxItems: number;
  /** Fetch every item again, changed or not (--refresh). */
  readonly refresh: boolean;
}

/** A fetched, consistent window, ready to become load data. */
export interface StreamFetched {
  readonly pagesFetched: number;
  /** Passes over the window (more than 1 when the data shifted under pagination). */
  readonly attempts: number;
  /** Rows fetched (distinct keys). */
  readonly rows: number;
  readonly warnings: readonly QualityWarning[];
  /** Things worth one log line (e.g. a page that said hasMore with no rows). */
  readonly notes: readonly string[];
  /** A --max-pages cap cut it short. */
  readonly truncated: boolean;
  /**
   * Checks the rows and turns them into the stream's load data (throws to refuse this window
   * alone); called when the window reaches the writer, so that row objects die young.
   */
  prepare(meta: { readonly runId: string; readonly fetchedAt: Date }): PreparedWindow;
}

/**
 * A stream of any kind (day, period, event range or keyed item): one endpoint of the analytics
 * API, how its windows are planned, fetched and prepared for loading into its own tables. The
 * pipeline knows streams only through this.
 */
export interface StreamDefinition {
  /** The name users give in --streams and that sync_windows.stream records. */
  readonly name: string;
  /** The ledger's name of its requests (api_requests.endpoint). */
  readonly endpoint: string;
  /** The tables it fills (export, status). */
  readonly tables: readonly string[];
  /** Most rows one page can hold (for estimates). */
  readonly pageSize: number;
  /**
   * The stream's windows for one project, from what is loaded (default: one window per UTC day,
   * `planProject`). A stream whose windows are ranges of days plans them here, so the pipeline
   * stays the same for every kind of window.
   */
  readonly plan?: (projectId: string, state: ProjectState, opts: PlanOptions) => ProjectPlan;
  /**
   * A stream whose windows follow from what other streams loaded (assistant threads from the
   * turns): planned from the database once every window planned before it is loaded, in the
   * same run. Its windows are items, recorded in its own tables rather than in sync_windows.
   */
  readonly planAfterLoads?: (
    db: Destination,
    projectId: string,
    opts: LatePlanOptions,
  ) => Promise<readonly PlannedWindow[]>;
  /**
   * Records an item window that failed after every retry in the stream's own table (items have no
   * sync_windows row), so that it does not take the place of the others in the next run.
   */
  readonly recordItemFailure?: (db: Destination, w: StreamWindow, at: Date, runId: string) => Promise<void>;
  /**
   * Its windows are cut only by the endpoint's own limit, never by --max-pages (feedback_by_page:
   * the first 100 paths of a day, with no cursor or offset to go further). Such a window is still
   * recorded truncated, but fetching it again gives the same cut, so once settled it is final.
   */
  readonly truncatedByEndpoint?: boolean;
  fetch(client: MintlifyClient, w: StreamWindow, o: StreamFetchOptions): Promise<StreamFetched>;
}
