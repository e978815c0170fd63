import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makeFolder } from '../../util/file-errors.js';
import { checkDbPath, openDatabase, type Database, type OpenOptions } from './database.js';
import type { Destination, Place } from '../destination.js';
import { acquireLock, syncHolder } from './file-lock.js';
import { LedgerJournal, lostRequests, recoverJournalReport } from './ledger-journal.js';
import { markStaleRuns } from '../runs.js';
import { openReadable, type ReadableOptions } from './readable.js';
import { loadPreparedBatch } from './window-batch.js';
import { markWindowFailed } from '../failed-windows.js';

/**
 * DuckDB may keep blocks it has written cached up to its memory_limit (by default 80% of the
 * machine's memory); the writer never needs more than a batch's worth, so it caps DuckDB's share
 * of the sync's footprint (BENCHMARKS.md, benchmarks 3 and 5).
 */
export const DEFAULT_WRITER_MEMORY_LIMIT = '32MB';

/**
 * An open DuckDB file as a Destination (the Database stays reachable for DuckDB-only code).
 * `file`: the file a run's lock and request journal belong to (a reader may have opened an
 * upgraded copy of it).
 */
export function duckDestination(
  db: Database,
  file: string = db.path,
): Destination & { readonly db: Database } {
  const journal = (): string => new LedgerJournal(file).path;
  return {
    kind: 'duckdb',
    label: db.path,
    session: db.session,
    db,
    loadBatch: (windows, opts) => loadPreparedBatch(db, windows, opts),
    markWindowFailed: (f) => markWindowFailed(db.session, f),
    // One lock for the whole file: whoever holds it now, no run it recorded is still going.
    markStaleRuns: () => markStaleRuns(db.session),
    recoverLostRequests: (o) => recoverJournalReport(db.session, journal(), o),
    lostRequests: (o) => lostRequests(db.session, journal(), o),
    syncRunning: async () => (await syncHolder(file)) !== undefined,
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

export interface DuckPlaceOptions {
  readonly busyTimeoutMs?: number;
  readonly writerMemoryLimit?: string;
  readonly read?: ReadableOptions;
  readonly open?: Pick<OpenOptions, 'sqlDir'>;
}

/** A DuckDB file named by --db. */
export function duckPlace(path: string, opts: DuckPlaceOptions = {}): Place {
  const busy = opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: opts.busyTimeoutMs } : {};
  return {
    kind: 'duckdb',
    label: path,
    handsOver: true,
    check(): void {
      checkDbPath(path);
    },
    exists: () => Promise.resolve(existsSync(path)),
    async lock() {
      checkDbPath(path);
      makeFolder(dirname(resolve(path)), `--db ${path}`);
      return acquireLock(path);
    },
    requestLedger({ runId, budgetScope }) {
      const journal = new LedgerJournal(path, { budgetScope });
      journal.open();
      return Promise.resolve({
        granted: (at) => journal.record(runId, at),
        refunded: (at) => journal.refund(runId, at),
        answered: () => false,
        finish: () => {
          journal.remove();
          return Promise.resolve();
        },
        close: () => {
          journal.close();
          return Promise.resolve();
        },
      });
    },
    async open(purpose) {
      if (purpose === 'read') return duckDestination(await openReadable(path, opts.read ?? {}), path);
      const db = await openDatabase(path, { ...busy, ...(opts.open ?? {}) });
      if (purpose === 'writer') {
        try {
          const limit = opts.writerMemoryLimit ?? DEFAULT_WRITER_MEMORY_LIMIT;
          await db.connection.run(`SET memory_limit = '${limit.replaceAll("'", "''")}'`);
        } catch (e) {
          db.close();
          throw e;
        }
      }
      return duckDestination(db, path);
    },
  };
}

/** The destination a run was given, or the DuckDB file at `dbPath` (the default destination). */
export function placeOrFile(opts: { readonly place?: Place | undefined; readonly dbPath: string }): Place {
  return opts.place ?? duckPlace(opts.dbPath);
}
