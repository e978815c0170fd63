import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { FirstUse, FirstUseOptions } from '../destination.js';
import { openDatabase } from './database.js';
import { queryRows } from './sql.js';

/**
 * A run that may create the DuckDB file: a new file in a folder that does not exist is refused
 * (a typo in --db or MINTLIFY_ETL_DB must not create folders and a fresh file, then spend an
 * hour's budget), except at the default path; a file a refused first run created is removed.
 */
export function fileFirstUse(path: string, opts: FirstUseOptions): FirstUse {
  refuseNewFolder(path, opts);
  const existed = existsSync(path);
  return {
    existed,
    created: () => !existed && existsSync(path),
    async dropIfEmpty() {
      // Nothing to drop when the run refused before creating it (rm would fail on a path below a file).
      if (existed || !existsSync(path)) return;
      if (await holdsData(path)) return;
      await rm(path, { force: true });
      await rm(`${path}.wal`, { force: true });
    },
  };
}

function refuseNewFolder(path: string, opts: FirstUseOptions): void {
  if (existsSync(path) || resolve(path) === resolve(opts.defaultPath)) return;
  const folder = dirname(resolve(path));
  if (existsSync(folder) || !underAFolder(folder)) return;
  throw new UsageError(
    `${opts.source} ${path}: the folder ${folder} does not exist: check the path, or create the folder first (mkdir -p ${folder})`,
    { path },
  );
}

/** Whether the nearest part of `path` that exists is a folder (a file in the way has its own message). */
function underAFolder(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st !== undefined) return st.isDirectory();
    if (dirname(p) === p) return false;
  }
}

async function holdsData(path: string): Promise<boolean> {
  try {
    const db = await openDatabase(path, { readOnly: true });
    try {
      // Any stream's loaded window counts, not only visitors', and so does an event object.
      const rows = await queryRows(
        db.connection,
        `SELECT (SELECT count(*) FROM sync_windows WHERE status = 'loaded')
           + (SELECT count(*) FROM event_objects) AS n`,
      );
      return Number(rows[0]?.['n'] ?? 0) > 0;
    } finally {
      db.close();
    }
  } catch {
    // Unreadable: keep it, a user can look at it; deleting is the step that cannot be undone.
    return true;
  }
}
