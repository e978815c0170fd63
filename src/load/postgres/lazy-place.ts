import type { Place } from '../destination.js';
import type { PgTarget } from './connect.js';
import type { PgPlaceOptions } from './place.js';

/**
 * A PostgreSQL place whose driver is loaded only when it is first used: pg and its ~40 modules
 * would otherwise be loaded by every command, a sync into a DuckDB file included (benchmark 11).
 * What a place says before it connects (its label, that it never hands over, that there is no
 * file to check or to create) is known without the driver.
 */
export function lazyPgPlace(target: PgTarget, opts: PgPlaceOptions = {}): Place {
  let loaded: Promise<Place> | undefined;
  const real = (): Promise<Place> => (loaded ??= import('./place.js').then((m) => m.pgPlace(target, opts)));
  return {
    kind: 'postgres',
    label: target.label,
    file: undefined,
    handsOver: false,
    check(): void {},
    // A schema is created by the first open to write and never dropped by this tool.
    firstUse: () => ({ existed: true, created: () => false, dropIfEmpty: () => Promise.resolve() }),
    makeRoom: () => Promise.resolve(),
    checkWritable: async () => (await real()).checkWritable(),
    requireExisting: async () => (await real()).requireExisting(),
    runUserQuery: async (sql, o, consume) => (await real()).runUserQuery(sql, o, consume),
    exists: async () => (await real()).exists(),
    lock: async (projects, o) => (await real()).lock(projects, o),
    lockIfExists: async (projects) => (await real()).lockIfExists(projects),
    open: async (purpose) => (await real()).open(purpose),
    requestLedger: async (o) => (await real()).requestLedger(o),
  };
}
