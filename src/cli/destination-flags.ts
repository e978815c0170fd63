import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Place } from '../load/destination.js';
import { duckPlace } from '../load/duckdb/place.js';
import { parseDbTarget, type DbTarget } from '../load/target.js';
import { dbPath } from './options.js';

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

/** What --db and --schema name; --schema with a DuckDB file is a mistake worth saying. */
export function dbTargetOf(flags: DbFlags, env: NodeJS.ProcessEnv = process.env): DbTarget {
  const target = parseDbTarget(dbPath(flags.db, env), flags.schema, env);
  if (target.kind === 'duckdb' && flags.schema !== undefined) {
    throw new UsageError(
      `--schema applies to a PostgreSQL --db only; ${target.path} is a DuckDB file: drop --schema, or give --db postgresql://...`,
      { schema: flags.schema },
    );
  }
  return target;
}

/**
 * The destination a command writes or reads. The PostgreSQL side is imported only when asked
 * for: its driver is ~40 modules that every sync into a DuckDB file would otherwise load first.
 */
export async function placeOf(target: DbTarget): Promise<Place> {
  if (target.kind === 'duckdb') return duckPlace(target.path);
  const { pgPlace } = await import('../load/postgres/place.js');
  return pgPlace(target);
}
