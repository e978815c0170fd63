import {
  DuckDBDataChunk,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';

/** A DuckDB vector holds 2,048 values; a DataChunk is at most one vector long. */
export const CHUNK_ROWS = 2048;

// About 10-15 ms of main-thread work between yields: short enough for responses waiting on the
// event loop, long enough that flushing does not cost bulk loads much (flushing every chunk did).
const CHUNKS_PER_YIELD = 4;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Appends `n` rows built column by column, one DataChunk per 2,048 rows. Appender calls are
 * synchronous and run on the main thread (about 2 µs a row); flushing and yielding after every
 * few chunks keeps a big batch from stalling the HTTP responses the fetchers are waiting for.
 */
export async function appendColumns(
  appender: DuckDBAppender,
  types: readonly DuckDBType[],
  n: number,
  columns: (start: number, end: number) => readonly (readonly DuckDBValue[])[],
): Promise<void> {
  for (let start = 0; start < n; start += CHUNK_ROWS) {
    const end = Math.min(n, start + CHUNK_ROWS);
    const chunk = DuckDBDataChunk.create([...types], end - start);
    chunk.setColumns(columns(start, end));
    appender.appendDataChunk(chunk);
    if (end < n && (start / CHUNK_ROWS) % CHUNKS_PER_YIELD === CHUNKS_PER_YIELD - 1) {
      appender.flushSync();
      await yieldToEventLoop();
    }
  }
}

export async function withAppender(
  conn: DuckDBConnection,
  table: string,
  fn: (a: DuckDBAppender) => Promise<void>,
): Promise<void> {
  const appender = await conn.createAppender(table);
  try {
    await fn(appender);
    appender.closeSync();
  } catch (e) {
    try {
      appender.clear();
      appender.closeSync();
    } catch {
      // The caller rolls the transaction back; the appender's own error is the one to report.
    }
    throw e;
  }
}
