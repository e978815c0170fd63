import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { dirname, resolve } from 'node:path';
import { makeFolder } from '../../util/file-errors.js';
import {
  checkDbPath,
  openDatabase,
  READER_MEMORY_LIMIT,
  type Database,
  type OpenOptions,
} from './database.js';
import { exportTables } from './export.js';
import { streamQuery } from './user-query.js';
import { fileFirstUse } from './new-file.js';
import type { Destination, Place } from '../destination.js';
import { acquireLock, syncHolder } from './file-lock.js';
import { LedgerJournal, lostRequests, recoverJournalReport } from './ledger-journal.js';
import { markStaleRuns } from '../runs.js';
import { openReadable, type ReadableOptions } from './readable.js';
import { loadPreparedBatch } from './window-batch.js';
import { markWindowFailed } from '../failed-windows.js';
import { duckEventStage } from './event-stage.js';

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
    exportTables: (o) => exportTables(db.connection, o),
    eventStage: () => duckEventStage(db.connection),
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
  /** Told what a reader should know (an upgraded copy read, a wait for a writer): one line each. */
  readonly onNote?: (line: string) => void;
}

/** A command that reads what sync wrote never creates the file: an existing DuckDB file only. */
export function requireExistingDb(path: string): void {
  if (existsSync(path) && !statSync(path).isFile()) {
    throw new UsageError(`--db ${path} is a folder: point --db (or MINTLIFY_ETL_DB) at the DuckDB file`, {
      path,
    });
  }
  if (!existsSync(path)) {
    throw new UsageError(
      `no database at ${path}: run \`mintlify-etl sync\` first, or point --db (or MINTLIFY_ETL_DB) at an existing file`,
      { path },
    );
  }
  checkDbPath(path);
}

/** How a reader opens the file: a bounded memory limit (spilling past it), its notes told. */
function readOptions(path: string, opts: DuckPlaceOptions): ReadableOptions {
  const note = opts.onNote;
  return {
    memoryLimit: READER_MEMORY_LIMIT,
    ...(note === undefined
      ? {}
      : {
          onUpgradedCopy: (from: number, to: number) =>
            note(
              `note: ${path} has schema version ${from}; read through a copy upgraded to ${to} (the next sync upgrades the file itself)`,
            ),
          onWait: (pid: number | undefined, timeoutMs: number) =>
            note(
              `waiting for the database: ${pid === undefined ? 'another process' : `process ${pid} (a sync?)`} is writing to it and pauses every few seconds; giving up after ${Math.round(timeoutMs / 1000)}s`,
            ),
        }),
    ...(opts.read ?? {}),
  };
}

/** A DuckDB file named by --db. */
export function duckPlace(path: string, opts: DuckPlaceOptions = {}): Place {
  const busy = opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: opts.busyTimeoutMs } : {};
  return {
    kind: 'duckdb',
    label: path,
    file: path,
    handsOver: true,
    check(): void {
      checkDbPath(path);
    },
    exists: () => Promise.resolve(existsSync(path)),
    requireExisting() {
      requireExistingDb(path);
      return Promise.resolve();
    },
    async lockIfExists(projects) {
      return existsSync(path) ? this.lock(projects) : undefined;
    },
    firstUse: (o) => fileFirstUse(path, o),
    makeRoom() {
      makeFolder(dirname(resolve(path)), `--db ${path}`);
      return Promise.resolve();
    },
    checkWritable() {
      checkDbPath(path);
      return Promise.resolve();
    },
    async runUserQuery(sql, _o, consume) {
      requireExistingDb(path);
      // Sandboxed: read-only mode alone still lets COPY ... TO overwrite files. DuckDB's default
      // memory limit: the sandbox shuts DuckDB off from every file, the temp folder included, so
      // under a limit a big ORDER BY could not spill (it took 500 MB on 3.7M rows); the rows
      // stream out in chunks instead.
      const { memoryLimit: _limit, ...read } = readOptions(path, opts);
      const db = await openReadable(path, { ...read, sandbox: true });
      try {
        return await consume(await streamQuery(db.connection, sql));
      } finally {
        db.close();
      }
    },
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
      if (purpose === 'read') {
        requireExistingDb(path);
        return duckDestination(await openReadable(path, readOptions(path, opts)), path);
      }
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
