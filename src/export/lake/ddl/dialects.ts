/**
 * The engines `export --ddl` writes statements for. A module of its own, importing nothing, so
 * that `export --help` can list them without loading what writes them.
 */
export const DDL_DIALECTS = ['athena', 'bigquery', 'snowflake', 'duckdb'] as const;

export type DdlDialect = (typeof DDL_DIALECTS)[number];
