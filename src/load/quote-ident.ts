/**
 * A name as an SQL identifier in double quotes, a quote inside doubled: the standard form, read
 * alike by DuckDB and PostgreSQL, so any table, column or schema name (a user's, a keyword, mixed
 * case) names exactly itself.
 */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
