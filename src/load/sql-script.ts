/**
 * The SQL a destination's first migration applies, as one script a DBA can read or paste into the
 * destination's own shell (`mintlify-etl sql`): each destination's folder writes its own.
 */
export interface ScriptOptions {
  /** PostgreSQL: the schema the script creates and fills (default mintlify). */
  readonly schema?: string;
  /** Test seam: the folder holding schema/ and views/. Default: the package's sql/. */
  readonly sqlDir?: string;
}

export const SQL_DESTINATIONS = ['duckdb', 'postgres'] as const;
export type SqlDestination = (typeof SQL_DESTINATIONS)[number];

const SCRIPTS: Readonly<Record<SqlDestination, () => Promise<(opts: ScriptOptions) => Promise<string>>>> = {
  duckdb: async () => (await import('./duckdb/script.js')).duckdbScript,
  postgres: async () => (await import('./postgres/script.js')).postgresScript,
};

/** The script for a destination; each destination's code is loaded only when asked for. */
export async function migrationScript(
  destination: SqlDestination,
  opts: ScriptOptions = {},
): Promise<string> {
  return (await SCRIPTS[destination]())(opts);
}
