/**
 * The emulator's visitor counts: a site's totals and one page's row, and a query's answer made
 * of them. They live apart from data.ts (which builds the dataset out of generate, aggregate and
 * the streams) so that those parts can name the shapes without importing the dataset back.
 */

export interface Totals {
  readonly human: number;
  readonly ai: number;
  readonly total: number;
}

export interface PageRow {
  readonly path: string;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
}

export interface QueryResult {
  readonly totals: Totals;
  /** Ordered total desc, then path asc (JS string comparison). */
  readonly rows: readonly PageRow[];
}
