import type { Place } from '../load/destination.js';
import { placeOf as placeOfTarget } from '../load/places.js';
import { parseDbTarget, type DbTarget } from '../load/target.js';
import type { DbFlags } from './db-flags.js';
import { dbPath } from './options.js';

/** What --db and --schema name; --schema with a DuckDB file is a mistake worth saying. */
export function dbTargetOf(flags: DbFlags, env: NodeJS.ProcessEnv = process.env): DbTarget {
  return parseDbTarget(dbPath(flags.db, env), flags.schema, env);
}

/** The destination a command writes or reads; what a reader should know goes to stderr. */
export function placeOf(target: DbTarget): Place {
  return placeOfTarget(target, { onNote: (line) => process.stderr.write(`mintlify-etl: ${line}\n`) });
}
