import type { SqlDialect } from './sql-dialect.js';

/**
 * The one way commands and the pipeline talk SQL to a destination, whichever it is. Statements are
 * written in the SQL both dialects share (numbered `$1` parameters with explicit casts such as
 * `$1::DATE`, `unnest($1::VARCHAR[])`, `coalesce`, window functions); where they differ, code asks
 * `dialect`. Values go in as plain JS values and come out as plain JS values, the same on both.
 */
export type Dialect = 'duckdb' | 'postgres';

/** A scalar parameter: a time goes in as an ISO string with a `::TIMESTAMPTZ` cast, a day as 'YYYY-MM-DD' with `::DATE`. */
export type SqlScalar = string | number | bigint | boolean | null;

/** A parameter: a scalar, or a list of scalars (bound to `$n::VARCHAR[]`, `$n::DATE[]`, ...). */
export type SqlParam = SqlScalar | readonly SqlScalar[];

/**
 * A row as plain JSON-friendly values, the same on both destinations: integers are numbers when
 * they fit exactly (decimal strings when not), DATE is 'YYYY-MM-DD', TIMESTAMPTZ an ISO string in
 * UTC with milliseconds, booleans booleans, lists and JSON their JS values.
 */
export type Row = Record<string, unknown>;

export interface SqlSession {
  readonly dialect: Dialect;
  /** The SQL fragments this destination spells its own way (lower case of any letter, code-point order, ...). */
  readonly sql: SqlDialect;
  /** Runs one statement and returns its rows. */
  rows(sql: string, params?: readonly SqlParam[]): Promise<Row[]>;
  /** Runs one statement; returns how many rows it changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /**
   * BEGIN, `fn`, COMMIT; ROLLBACK on any error. Statements `fn` runs through this session join the
   * transaction; other callers of the session wait until it ends.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** A time as the ISO text both dialects read with `::TIMESTAMPTZ`. */
export function isoTime(at: Date | number): string {
  return new Date(typeof at === 'number' ? at : at.getTime()).toISOString();
}
