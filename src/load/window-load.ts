/**
 * One fetched visitors window as the loaders take it. A type of its own so that the batch
 * loader (which loads many) and the window loader (a batch of one) both name it, and only the
 * window loader imports the batch loader.
 */
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
