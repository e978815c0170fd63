/*
 * A user query's result as every destination hands it to `query`: named columns, and rows of
 * JSON values (exact integers beyond 2^53 as text), in batches as they stream.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface Column {
  /** The name as the SQL produced it (table and CSV headers). */
  readonly name: string;
  /** A unique key for JSON objects (duplicate names get a suffix). */
  readonly key: string;
  /** Right-aligned in tables. */
  readonly numeric: boolean;
  /** Never cut in tables (numbers, dates, times, ids): the column is left out instead. Default: numeric. */
  readonly whole?: boolean;
}

/**
 * A 64/128-bit integer as JSON: a number while it is exact, a string beyond 2^53 so that no
 * consumer silently gets a rounded count.
 */
export function jsonInteger(n: bigint): number | string {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(n)
    : n.toString();
}

/** JSON has no NaN or Infinity: those travel as strings rather than turning into null. */
export function jsonFloat(n: number): number | string {
  return Number.isFinite(n) ? n : String(n);
}

/** A query's result as `query` prints it: its columns, and its rows in batches as they arrive. */
export interface QueryStream {
  readonly columns: readonly Column[];
  /** Rows in batches (DuckDB's chunks of about 2,048 rows, PostgreSQL's fetches), as JSON values. */
  readonly batches: AsyncIterable<JsonValue[][]>;
}
