import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { SqlError } from '../../errors.js';
import { refuseHashKey } from '../hash-key-guard.js';
import type { Column, JsonValue, QueryStream } from '../query-result.js';
import { isNumericType, isWholeType, toJsonValue } from './query-values.js';

/**
 * DuckDB's message without the "LINE 1: ... ^" excerpt that follows the first blank line,
 * folded onto one line ("Catalog Error: Table ... does not exist! Did you mean ...?").
 */
export function sqlErrorMessage(e: unknown): string {
  // The node client wraps parse errors of multi-statement text in its own prefix.
  const raw = (e instanceof Error ? e.message : String(e)).replace(/^Failed to extract statements:\s*/, '');
  const head = raw.split(/\r?\n\s*\r?\n/)[0] ?? raw;
  return head
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

const SANDBOXED =
  /file system operations are disabled by configuration|the configuration has been locked|has been disabled by configuration|with the LocalFileSystem disabled/;

function toSqlError(e: unknown): SqlError {
  const message = sqlErrorMessage(e);
  const hint = SANDBOXED.test(message)
    ? ' (query is read-only: it reads the database and nothing else, and changes no file or setting; write files with `mintlify-etl export`, or open the database in the duckdb shell)'
    : '';
  return new SqlError(`${message}${hint}`, {}, { cause: e });
}

/** Runs the user's SQL (several statements allowed: the last one's rows are returned). */
export async function streamQuery(conn: DuckDBConnection, sql: string): Promise<QueryStream> {
  refuseHashKey(sql);
  let result: Awaited<ReturnType<DuckDBConnection['stream']>>;
  try {
    result = await conn.stream(sql);
  } catch (e) {
    throw toSqlError(e);
  }
  const names = result.columnNames();
  const keys = result.deduplicatedColumnNames();
  const columns = result.columnTypes().map((type, i) => ({
    name: names[i] ?? `column${i}`,
    key: keys[i] ?? `column${i}`,
    numeric: isNumericType(type),
    whole: isWholeType(type),
  }));
  async function* batches(): AsyncGenerator<JsonValue[][]> {
    const it = result.yieldRows();
    for (;;) {
      let next: IteratorResult<DuckDBValue[][]>;
      try {
        // Errors of a streaming query (a bad cast in row 10,000) surface while fetching.
        next = await it.next();
      } catch (e) {
        throw toSqlError(e);
      }
      if (next.done === true) return;
      yield next.value.map((row) => row.map(toJsonValue));
    }
  }
  return { columns, batches: batches() };
}

/** The whole result in memory (tables and tests). */
export async function readQuery(
  conn: DuckDBConnection,
  sql: string,
): Promise<{ columns: readonly Column[]; rows: JsonValue[][] }> {
  const { columns, batches } = await streamQuery(conn, sql);
  const rows: JsonValue[][] = [];
  for await (const batch of batches) for (const r of batch) rows.push(r);
  return { columns, rows };
}
