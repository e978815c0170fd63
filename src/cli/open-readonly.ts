import type { Destination } from '../load/destination.js';
import type { DbTarget } from '../load/target.js';
import { placeOf } from './destination-flags.js';

/**
 * The destination a read command reads (status, report, gaps, digest, export, alerts): an
 * existing DuckDB file opened read-only, or the PostgreSQL schema a sync filled. Never creates
 * either, never migrates, never takes the writer's place.
 */
export function openToRead(target: DbTarget): Promise<Destination> {
  return placeOf(target).open('read');
}
