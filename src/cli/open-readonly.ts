import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { openDatabase, type Database } from '../load/database.js';

/**
 * Opens the database for reading only: the read commands never create a file, never migrate,
 * and never take the writer's place (a sync can keep loading while they read, between its loads).
 */
export async function openExistingReadOnly(
  path: string,
  opts: { sandbox?: boolean } = {},
): Promise<Database> {
  if (existsSync(path) && !statSync(path).isFile()) {
    throw new UsageError(`--db ${path} is a folder: point --db (or MINTLIFY_ETL_DB) at the DuckDB file`, {
      path,
    });
  }
  if (!existsSync(path)) {
    throw new UsageError(
      `no database at ${path}: run \`mintlify-etl sync\` first, or point --db (or MINTLIFY_ETL_DB) at an existing file`,
      { path },
    );
  }
  if (!hasDuckDbHeader(path)) {
    throw new UsageError(
      `--db ${path} is not a DuckDB database: point --db (or MINTLIFY_ETL_DB) at the file \`mintlify-etl sync\` writes`,
      { path },
    );
  }
  return openDatabase(path, { readOnly: true, ...(opts.sandbox ? { sandbox: true } : {}) });
}

/**
 * DuckDB writes "DUCK" at bytes 8..12 of every database file. Checking first turns DuckDB's
 * long "IO Error" about another file (or an empty one) into a usage error naming the flag.
 */
function hasDuckDbHeader(path: string): boolean {
  const header = Buffer.alloc(12);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, header, 0, 12, 0) === 12 && header.toString('latin1', 8, 12) === 'DUCK';
  } finally {
    closeSync(fd);
  }
}
