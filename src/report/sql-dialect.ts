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

/**
 * `expr` in lower case, every letter of it: DuckDB lowers all of Unicode, PostgreSQL's lower()
 * follows the collation (a "C" database would lower ASCII only), so it uses ICU's root locale.
 * The same spelling as the question_key of v_assistant_unanswered on each destination.
 */
export function lowerAll(dialect: Dialect, expr: string): string {
  return dialect === 'postgres' ? `lower(${expr} COLLATE "und-x-icu") COLLATE "default"` : `lower(${expr})`;
}

/**
 * Runs of white space as DuckDB's '\s' (RE2) takes them, spelled out: PostgreSQL's '\s' also takes
 * the vertical tab and, with some locales, Unicode spaces. For regexp_replace on both.
 */
export const SPACES = "'[\\t\\n\\f\\r ]+'";
