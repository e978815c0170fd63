import { InternalError } from '../errors.js';
import type { Place } from './destination.js';
import { duckPlace, type DuckPlaceOptions } from './duckdb/place.js';
import { lazyPgPlace } from './postgres/lazy-place.js';
import type { PgPlaceOptions } from './postgres/place.js';
import { parseDbTarget, type DbTarget } from './target.js';

/*
 * The one module that knows every destination there is: what `--db` names becomes a Place, and
 * from then on the pipeline and the commands talk to it through that interface only. A new
 * destination is a folder beside duckdb/ and postgres/ and one case here.
 */

export interface PlaceOptions {
  readonly duckdb?: DuckPlaceOptions;
  readonly postgres?: PgPlaceOptions;
  /** Told what a reader should know while it opens (an upgraded copy, a wait for a writer). */
  readonly onNote?: (line: string) => void;
}

/** The destination `--db` (and `--schema`) name. */
export function placeOf(target: DbTarget, opts: PlaceOptions = {}): Place {
  switch (target.kind) {
    case 'duckdb':
      return duckPlace(target.path, {
        ...(opts.duckdb ?? {}),
        ...(opts.onNote !== undefined ? { onNote: opts.onNote } : {}),
      });
    case 'postgres':
      return lazyPgPlace(target, opts.postgres ?? {});
  }
}

/** The destination a run was given, or the one `dbPath` (a `--db` value) names. */
export function placeOrFile(opts: {
  readonly place?: Place | undefined;
  readonly dbPath?: string | undefined;
}): Place {
  if (opts.place !== undefined) return opts.place;
  if (opts.dbPath === undefined) throw new InternalError('a run needs a place or a dbPath', {});
  return placeOf(parseDbTarget(opts.dbPath));
}
