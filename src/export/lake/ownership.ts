import { UsageError } from '../../errors.js';
import { MANIFEST_NAME } from './manifest.js';
import type { LakeObject } from './target.js';

/**
 * Which objects under a lake's root this tool wrote. A lake export deletes files (those a killed
 * export left, those retired past the grace period), so it must know its own from a user's: only
 * its manifests and data files named as it names them (staged-files.ts) are its own.
 */

/** `data_N-<first 16 hex of the SHA-256>.parquet`, below one or more `name=value` folders. */
const DATA_FILE = /^(?:[^/=]+=[^/]*\/)+data_\d+-[0-9a-f]{16}\.parquet$/;

/** Whether `key` is a data file this tool writes into `table`'s folder. */
export function isLakeDataFile(table: string, key: string): boolean {
  return key.startsWith(`${table}/`) && DATA_FILE.test(key.slice(table.length + 1));
}

function isOwn(key: string, tables: readonly string[]): boolean {
  return tables.some((t) => key === `${t}/${MANIFEST_NAME}` || isLakeDataFile(t, key));
}

/**
 * Refuses a lake that holds objects of something else and none of this tool's manifests: an
 * export into it would mix its snapshot with files it cannot tell from its own. A lake an export
 * wrote before (a manifest there) is fine; other objects in it are left alone, never deleted.
 */
export function refuseForeignLake(
  where: string,
  listed: readonly LakeObject[],
  tables: readonly string[],
): void {
  if (listed.some((o) => tables.some((t) => o.key === `${t}/${MANIFEST_NAME}`))) return;
  const foreign = listed
    .map((o) => o.key)
    .filter((k) => !isOwn(k, tables))
    .sort();
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length} in all)` : '');
  throw new UsageError(
    `--to ${where} holds objects not written by mintlify-etl (${shown}); nothing was written: export into an empty or new prefix (or folder), or one an earlier lake export wrote`,
    { to: where, foreign: foreign.length },
  );
}
