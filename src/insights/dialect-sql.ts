import type { Dialect } from '../load/session.js';

/**
 * The SQL fragments the insights write differently per dialect; everything else they say in the
 * SQL both run (`percentile_cont(0.5) WITHIN GROUP (ORDER BY ...)` for a median, `COLLATE "C"` for
 * DuckDB's code-point text order, `x = ANY(list)`, `generate_series`).
 */

/**
 * lower() of any letter: DuckDB lowers every Unicode letter, PostgreSQL's lower() follows the
 * column's collation (C lowers ASCII only), so it lowers under ICU's root locale, as the views do
 * (sql/views/140_v_content_gaps.sql), and hands back the default collation for compares.
 */
export function lowerAll(dialect: Dialect, expr: string): string {
  return dialect === 'postgres'
    ? `(lower((${expr}) COLLATE "und-x-icu") COLLATE "default")`
    : `lower(${expr})`;
}
