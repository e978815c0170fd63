import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { BatchStep, PreparedWindow } from '../prepared-window.js';

/** DuckDB's side of a stream's tables: how a batch of its windows replaces their rows. */
export interface DuckTableLoader {
  /**
   * Inside the batch's transaction: deletes every row of these windows from the stream's tables
   * and inserts the new ones (each window replaced as a set). Calls `onStep` after its deletes
   * ('delete') and after each table it fills.
   */
  replace(
    conn: DuckDBConnection,
    windows: readonly PreparedWindow[],
    ctx: { readonly loadedAt: DuckDBValue; readonly onStep: (step: BatchStep) => Promise<void> },
  ): Promise<void>;
}
