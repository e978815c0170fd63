import type { Dialect } from '../load/session.js';

/**
 * The few SQL fragments the report and status readers cannot spell the same on both
 * destinations. Everything else they run is the SQL DuckDB and PostgreSQL share; these are where
 * PostgreSQL's text handling follows the database's locale and DuckDB's does not.
 */

/**
 * Text compared in code-point order, as DuckDB compares it: a PostgreSQL database's default
 * collation may follow a locale (en_US ignores '-' and case), so tie-breaks would pick other rows.
 */
export function codePoint(dialect: Dialect, expr: string): string {
  return dialect === 'postgres' ? `${expr} COLLATE "C"` : expr;
}

/*
 * Days are UTC days on both destinations, whatever the session's TimeZone (a BI tool's, a
 * PostgreSQL role's default): a cast between DATE and TIMESTAMPTZ would use that zone. timezone()
 * is spelled the same on both (DuckDB: ICU).
 */

/** The UTC day of a TIMESTAMPTZ expression, as a DATE. */
export function utcDay(expr: string): string {
  return `CAST(timezone('UTC', ${expr}) AS DATE)`;
}

/** The instant a DATE expression's UTC day starts, as a TIMESTAMPTZ. */
export function utcStart(dayExpr: string): string {
  return `timezone('UTC', CAST(${dayExpr} AS TIMESTAMP))`;
}
