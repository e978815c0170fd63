import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { onFile } from '../../util/file-errors.js';
import { specialKind } from '../../util/regular-file.js';

/**
 * The files a writer opens beside the database: its lock (and the lock's takeover guard), its
 * request journal and DuckDB's write-ahead log. Opening a FIFO there blocks the process in a
 * system call that no signal handler can interrupt (sync hung, deaf to SIGTERM); a folder or a
 * device makes every write fail.
 */
const SIBLINGS = [
  { suffix: '.lock', what: 'a lock file' },
  { suffix: '.lock.takeover', what: 'a lock file' },
  { suffix: '.requests.jsonl', what: 'a regular file' },
  { suffix: '.wal', what: 'a regular file' },
] as const;

/**
 * Refuses, before anything is opened or written, a database whose lock, journal or write-ahead
 * log is anything but a regular file (or absent), naming it and how to remove it. Both spellings
 * count: DuckDB names its log after the path it was given, the lock and journal after the real one.
 */
export function refuseOddSiblings(dbPath: string, realPath: string): void {
  const bases = new Set([resolve(dbPath), realPath]);
  for (const base of bases) {
    for (const { suffix, what } of SIBLINGS) {
      const path = `${base}${suffix}`;
      const stat = onFile(`--db ${dbPath}`, 'read', path, () => statSync(path, { throwIfNoEntry: false }));
      const kind = stat === undefined ? undefined : specialKind(stat);
      if (kind === undefined) continue;
      const remove = kind === 'folder' ? 'rmdir' : 'rm';
      throw new UsageError(
        `${path} is a ${kind}, not ${what}: remove it (${remove} "${path}") and try again`,
        { path, kind },
      );
    }
  }
}
