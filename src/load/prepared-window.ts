import type { LargestValue } from './large-values.js';
import type { TableSpec } from './table-spec.js';

/*
 * A window as the writer receives it, prepared by its stream: types only, shared by the loaders of
 * every destination and the rules they have in common (batch-rules.ts).
 */

/** What every window of every stream records in sync_windows, whatever its tables hold. */
export interface WindowMeta {
  readonly projectId: string;
  readonly stream: string;
  /** window_start: 'YYYY-MM-DD' (UTC). */
  readonly day: string;
  /** window_end, exclusive like the API's dateTo. */
  readonly dateTo: string;
  /** The window was not over when fetched (--include-today). */
  readonly partial: boolean;
  readonly pagesFetched: number;
  readonly attempts: number;
  readonly runId: string;
  readonly fetchedAt: Date;
  /** The API's own total for the window where it gives one (visitors: totals.total). */
  readonly apiTotalsTotal: number | null;
  /** A --max-pages cap cut the window short: loaded, but never counted as complete. */
  readonly truncated: boolean;
  /**
   * A window of one keyed record (an assistant thread): its stream's own table records it, so it
   * has no sync_windows row (whose key is a day).
   */
  readonly item?: { readonly id: string; readonly version: number } | undefined;
}

export type BatchStep = 'delete' | 'site' | 'pages' | 'window';

export interface BatchLoadOptions {
  /**
   * Fault-injection seam for tests: called inside the transaction after each step. Throwing (or
   * killing the process) here shows what a failure at that instant leaves behind.
   */
  onStep?: (step: BatchStep) => void | Promise<void>;
  /** The most a destination's memory limit is raised to for a window's huge value (DuckDB; default 512 MB). */
  maxMemoryBytes?: number;
}

/**
 * A window checked by its stream and turned into compact load data at once: a window may wait
 * for the writer's next commit, and a few strings per window are a fraction of the memory (and
 * of the garbage V8 must trace) that thousands of row objects are.
 */
export interface PreparedWindow {
  readonly w: WindowMeta;
  /** Rows the stream's tables receive (what sync_windows.rows records). */
  readonly rows: number;
  /** What the stream's tables are: each destination loads them its own way. */
  readonly spec: TableSpec;
  /** The stream's own load data, read only by `tables`. */
  readonly data: unknown;
  /** The longest JSON text of the window (the memory a huge value needs, and its failure line). */
  readonly largest?: LargestValue | undefined;
}
