import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { checkDbPath, READER_MEMORY_LIMIT, type Database } from '../load/duckdb/database.js';
import { openReadable } from '../load/duckdb/readable.js';
import type { Destination } from '../load/destination.js';
import { duckDestination } from '../load/duckdb/place.js';
import { pgPlace } from '../load/postgres/place.js';
import type { DbTarget } from '../load/target.js';

/** A command that reads what sync wrote never creates the file: an existing DuckDB file only. */
export function requireExistingDb(path: string): void {
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
  checkDbPath(path);
}

/**
 * Opens the database for reading only: the read commands never create a file, never migrate,
 * and never take the writer's place (a sync can keep loading while they read, between its loads).
 */
export async function openExistingReadOnly(
  path: string,
  opts: { sandbox?: boolean } = {},
): Promise<Database> {
  requireExistingDb(path);
  return openReadable(path, {
    ...(opts.sandbox ? { sandbox: true } : {}),
    // export, report and status read under a bounded limit and spill past it. query keeps
    // DuckDB's default: its sandbox shuts DuckDB off from every file, the temp folder included,
    // so under a limit a big ORDER BY could not spill and would fail (it took 500 MB on 3.7M
    // rows); its results are streamed in chunks instead.
    ...(opts.sandbox ? {} : { memoryLimit: READER_MEMORY_LIMIT }),
    onUpgradedCopy: (from, to) =>
      process.stderr.write(
        `mintlify-etl: note: ${path} has schema version ${from}; read through a copy upgraded to ${to} (the next sync upgrades the file itself)\n`,
      ),
    onWait: (pid, timeoutMs) =>
      process.stderr.write(
        `mintlify-etl: waiting for the database: ${pid === undefined ? 'another process' : `process ${pid} (a sync?)`} is writing to it and pauses every few seconds; giving up after ${Math.round(timeoutMs / 1000)}s\n`,
      ),
  });
}

/**
 * The destination a read command reads (status, report, gaps, digest, export, query): an existing
 * DuckDB file opened read-only, or the PostgreSQL schema a sync filled. Never creates either.
 */
export async function openToRead(target: DbTarget, opts: { sandbox?: boolean } = {}): Promise<Destination> {
  if (target.kind === 'postgres') return pgPlace(target).open('read');
  return duckDestination(await openExistingReadOnly(target.path, opts));
}
