import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DiskFullError, UsageError } from '../errors.js';

/**
 * The file system's refusals that the user causes and can fix, with what to do about each. Any
 * other code is a fault of the tool and stays an internal error.
 */
const USER_SIDE: Readonly<Record<string, { reason: string; advice: string }>> = {
  EACCES: { reason: 'permission denied', advice: 'choose a folder you can write to, or fix its permissions' },
  EPERM: { reason: 'operation not permitted', advice: 'choose a folder you can write to' },
  EROFS: { reason: 'read-only file system', advice: 'choose a path on a writable file system' },
  ENOSPC: { reason: 'no space left on the device', advice: 'free some space or choose another disk' },
  EDQUOT: { reason: 'disk quota exceeded', advice: 'free some space or choose another disk' },
  ENOENT: {
    reason: 'the system does not allow it there',
    advice: 'choose a path in an ordinary folder',
  },
  ENOTDIR: { reason: 'a part of the path is a file, not a folder', advice: 'choose another path' },
  EISDIR: { reason: 'it is a folder', advice: 'remove it or choose another path' },
  ELOOP: { reason: 'too many symbolic links', advice: 'choose another path' },
  ENAMETOOLONG: { reason: 'the name is too long', advice: 'choose a shorter path' },
  EEXIST: { reason: 'something else is in the way', advice: 'remove it or choose another path' },
  ENXIO: { reason: 'it is a FIFO or device nobody reads', advice: 'remove it or choose another path' },
  EMLINK: { reason: 'the folder holds too many entries', advice: 'choose another folder' },
};

/** DuckDB reports the system's refusals as text in an IO Error, without a code. */
const DUCKDB_IO_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/permission denied/i, 'EACCES'],
  [/read-only file system/i, 'EROFS'],
  [/no space left on device/i, 'ENOSPC'],
  [/disk quota exceeded/i, 'EDQUOT'],
];

/** The errno code of a Node file-system error, or the one a DuckDB IO Error names in words. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  const message = e instanceof Error ? e.message : '';
  if (!/IO Error/i.test(message)) return undefined;
  return DUCKDB_IO_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
}

/**
 * A file-system failure on `path` as one line naming it and what to do (exit 2), when the user
 * can fix it; `undefined` for anything else. `subject` is what the user gave, e.g. `--html r.html`.
 */
export function userFileError(
  e: unknown,
  subject: string,
  action: string,
  path: string,
): UsageError | undefined {
  const code = errnoCode(e);
  const known = code === undefined ? undefined : USER_SIDE[code];
  if (known === undefined) return undefined;
  return new UsageError(
    `${subject}: cannot ${action} ${path} (${known.reason}, ${code}): ${known.advice}`,
    { path, code },
    { cause: e },
  );
}

/** Runs a file-system step, turning the user-side failures into a usage error naming the path. */
export function onFile<T>(subject: string, action: string, path: string, step: () => T): T {
  try {
    return step();
  } catch (e) {
    throw userFileError(e, subject, action, path) ?? e;
  }
}

/** Async twin of `onFile`. */
export async function onFileAsync<T>(
  subject: string,
  action: string,
  path: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw userFileError(e, subject, action, path) ?? e;
  }
}

/**
 * Creates `dir` and its missing parents one level at a time. Node's recursive mkdir retries
 * forever when the kernel answers ENOENT for a parent that exists (every folder under /proc or
 * /sys): it spun at full CPU and ignored Ctrl-C. One call per missing level cannot loop, and the
 * first refusal names the folder and what to do.
 */
export function makeFolder(dir: string, subject: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    // Symbolic links followed: a link to a folder is a folder to write in.
    const stat = onFile(subject, 'read', at, () => statSync(at, { throwIfNoEntry: false }));
    if (stat !== undefined) {
      if (!stat.isDirectory()) {
        throw new UsageError(`${subject}: ${at} is a file, not a folder: choose another path`, { path: at });
      }
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    onFile(subject, 'create the folder', folder, () => mkdirSync(folder));
  }
}

/**
 * DuckDB's ways of saying the disk is full: an IO Error in words, or an Out of Memory Error when
 * the temp folder may not grow (its max_temp_directory_size defaults to the space left on the disk).
 */
const DISK_FULL = /no space left on device|disk quota exceeded|max_temp_directory_size/i;

/** Whether `e`, or an error it wraps, is a disk refusing a write for want of space. */
export function isDiskFull(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const code = (c as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
    if (c instanceof Error && DISK_FULL.test(c.message)) return true;
    c = c instanceof Error ? c.cause : undefined;
  }
  return false;
}

/** One line for a full disk under `where` (a database file, or a destination's label), saying what happened and what to do. */
export function diskFullError(e: unknown, where: string, what: string): DiskFullError {
  return new DiskFullError(
    `the disk holding ${where} is full (no space left on the device): ${what}; free some space or move --db to another disk, then run the command again`,
    { where },
    { cause: e },
  );
}
