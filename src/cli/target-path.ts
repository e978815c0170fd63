import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

/** Files next to the database that belong to it: DuckDB's write-ahead log, our lock and request journal. */
export const DATABASE_SIBLINGS = ['.wal', '.lock', '.requests.jsonl'] as const;

/**
 * Where writing to `path` would land, symbolic links resolved: the real path of its deepest
 * existing ancestor with the missing rest appended. Comparing these, not the text given, is what
 * catches `--html link-to-the-db` or `--out ../data`.
 */
export function realTarget(path: string, flag: string): string {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    if (entryExists(at, flag, path)) return existingTarget(path, flag, at, missing.reverse());
    const parent = dirname(at);
    if (parent === at) return join(at, ...missing.reverse());
    missing.push(basename(at));
    at = parent;
  }
}

/** ENOTDIR too: below a file nothing exists, and the file is what the message names. */
function entryExists(at: string, flag: string, path: string): boolean {
  try {
    lstatSync(at);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw new UsageError(
      `${flag} ${path}: ${at} cannot be read (${code ?? 'error'}): choose another ${flag}`,
      {
        flag,
        path,
      },
    );
  }
}

function existingTarget(path: string, flag: string, at: string, missing: readonly string[]): string {
  const where = at === resolve(path) ? `${flag} ${path}` : `${flag} ${path}: ${at}`;
  if (!existsSync(at)) {
    throw new UsageError(
      `${where} is a symbolic link to ${readlinkSync(at)}, which does not exist: create that folder or choose another ${flag}`,
      { flag, path },
    );
  }
  let real: string;
  try {
    real = realpathSync(at);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`${where} cannot be resolved (${code}): choose another ${flag}`, { flag, path });
  }
  if (missing.length > 0 && !statSync(real).isDirectory()) {
    throw new UsageError(`${flag} ${path}: ${at} is a file, not a folder`, { flag, path });
  }
  return join(real, ...missing);
}

/**
 * The real paths of the database file and its siblings, each with what it is. The siblings are
 * named after the path DuckDB was given, so both the given and the real spelling count.
 */
export function databaseFiles(db: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const base of new Set([resolve(db), realTarget(db, '--db')])) {
    files.set(realTarget(base, '--db'), 'the database');
    for (const suffix of DATABASE_SIBLINGS)
      files.set(realTarget(base + suffix, '--db'), `the database's ${suffix} file`);
  }
  return files;
}

/** True when `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}
