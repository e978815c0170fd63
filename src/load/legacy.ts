import { InternalError } from '../errors.js';
import type { Database } from './duckdb/database.js';
import type { Destination } from './destination.js';

/**
 * The DuckDB Database behind a Destination, for the code not yet moved onto SqlSession. Throws
 * for PostgreSQL, which that code cannot serve.
 */
export function legacyDatabase(d: Destination): Database {
  const db = (d as { db?: Database }).db;
  if (d.kind !== 'duckdb' || db === undefined)
    throw new InternalError(`this operation is not available on ${d.kind} yet`, { kind: d.kind });
  return db;
}
