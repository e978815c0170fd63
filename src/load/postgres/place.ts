import { InternalError } from '../../errors.js';
import type { Destination, Place, RunLock } from '../destination.js';
import { openPostgres, type PgDatabase, type PgOpenOptions, type PgTarget } from './connect.js';

export interface PgPlaceOptions extends PgOpenOptions {
  /** Takes the run's advisory locks (see ./lock.ts). */
  readonly lock?: (target: PgTarget, projects: readonly string[]) => Promise<RunLock>;
}

/** An open PostgreSQL schema as a Destination. */
export function pgDestination(db: PgDatabase): Destination & { readonly pg: PgDatabase } {
  return {
    kind: 'postgres',
    label: db.label,
    session: db.session,
    pg: db,
    loadBatch: () => Promise.reject(new InternalError('PostgreSQL window loading is not wired yet')),
    markWindowFailed: () => Promise.reject(new InternalError('PostgreSQL window loading is not wired yet')),
    close: () => db.close(),
  };
}

/**
 * A schema of a PostgreSQL database named by --db. Migrations and views are applied by the first
 * open to write in this process only: every later open finds them in place.
 */
export function pgPlace(target: PgTarget, opts: PgPlaceOptions = {}): Place {
  let migrated = false;
  return {
    kind: 'postgres',
    label: target.label,
    handsOver: false,
    check(): void {},
    async exists() {
      try {
        await (await openPostgres(target, opts)).close();
        return true;
      } catch {
        return false;
      }
    },
    async lock(projects) {
      if (!opts.lock) throw new InternalError('PostgreSQL run locks are not wired yet');
      return opts.lock(target, projects);
    },
    async open(purpose) {
      const migrate = purpose !== 'read' && !migrated;
      const db = await openPostgres(target, { ...opts, migrate });
      if (migrate) migrated = true;
      return pgDestination(db);
    },
  };
}
