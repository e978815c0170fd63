import { Option, type Command } from 'commander';

/*
 * The database flags as text alone: every command's --help shows them, and opening the database
 * (DuckDB's native module, pg) is for src/cli/destination-flags.ts, which an action loads.
 */

export interface DbFlags {
  db?: string;
  schema?: string;
}

/**
 * `--db` and `--schema` as every command that reads or writes the database takes them: a DuckDB
 * file, or a PostgreSQL URL and the schema there.
 */
export function addDbOptions(cmd: Command, what = 'the database'): Command {
  return cmd.option(DB_FLAG, dbHelp(what)).addOption(new Option(SCHEMA_FLAG, SCHEMA_HELP));
}

export const DB_FLAG = '--db <path|url>';
export const BUDGET_SCOPE_FLAG = '--budget-scope <name>';
export const BUDGET_SCOPE_HELP =
  "whose requests count against the budget: one organization's name when it syncs with several keys (env MINTLIFY_ETL_BUDGET_SCOPE; default: a one-way fingerprint of the API key)";
export const SCHEMA_FLAG = '--schema <name>';
export const SCHEMA_HELP =
  'PostgreSQL only: the schema of the tables and views (env MINTLIFY_ETL_SCHEMA; default mintlify)';

export function dbHelp(what = 'the database'): string {
  return `${what}: a DuckDB file, or postgresql://USER@HOST:5432/DATABASE (env MINTLIFY_ETL_DB; default data/analytics.duckdb)`;
}
