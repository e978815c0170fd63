import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  knownSchemaVersion,
  openDatabase,
  schemaVersion,
  type Database,
  type OpenOptions,
} from './database.js';

export interface ReadableOptions extends Pick<
  OpenOptions,
  'sandbox' | 'onWait' | 'busyTimeoutMs' | 'memoryLimit'
> {
  /** Told once when the database is read through an upgraded copy. */
  readonly onUpgradedCopy?: (from: number, to: number) => void;
}

/**
 * Opens a database for reading whatever schema it has. A file written by an older mintlify-etl
 * lacks the tables and columns this one reads, and a read-only open cannot migrate it (and a
 * reader must not change it), so it is read through a temporary copy that is migrated: the copy
 * is taken while the read-only open holds DuckDB's shared lock, so no writer changes the file
 * meanwhile. The next sync upgrades the file itself, in place.
 */
export async function openReadable(path: string, opts: ReadableOptions = {}): Promise<Database> {
  const { onUpgradedCopy, ...open } = opts;
  const db = await openDatabase(path, { ...open, readOnly: true });
  let from: number;
  try {
    from = await schemaVersion(db.connection);
  } catch (e) {
    db.close();
    throw e;
  }
  const to = await knownSchemaVersion();
  if (from >= to) return db;
  const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-upgrade-'));
  const copy = join(dir, basename(path));
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}.wal`)) copyFileSync(`${path}.wal`, `${copy}.wal`);
  } finally {
    db.close();
  }
  try {
    (await openDatabase(copy)).close();
    const snapshot = await openDatabase(copy, { ...open, readOnly: true });
    onUpgradedCopy?.(from, to);
    return {
      ...snapshot,
      // Messages name the user's file, not the copy.
      path,
      label: path,
      close(): void {
        snapshot.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
