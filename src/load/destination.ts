import type { QueryStream } from './query-result.js';
import type { ExportOptions, ExportSummary } from './export-plan.js';
import type { LedgerRow } from './runs.js';
import type { Dialect, SqlSession } from './session.js';
import type { BatchLoadOptions, PreparedWindow } from './prepared-window.js';
import type { WindowFailure } from './failed-windows.js';
import type { EventStage } from './event-stage.js';

/**
 * An open destination: what the pipeline and the commands write and read through, without knowing
 * whether it is a DuckDB file or a PostgreSQL schema (DESIGN.md, Destinations).
 */
export interface Destination {
  readonly kind: Dialect;
  /** How messages name it: the file path, or the URL without its password and the schema. */
  readonly label: string;
  readonly session: SqlSession;
  /**
   * Loads prepared windows of any streams in ONE transaction with their sync_windows rows: a
   * failure or a kill at any instant leaves every window of the batch all-old.
   */
  loadBatch(windows: readonly PreparedWindow[], opts?: BatchLoadOptions): Promise<void>;
  /** Records a window that failed after retries, unless it already holds loaded data. */
  markWindowFailed(f: WindowFailure): Promise<boolean>;
  /**
   * Marks runs left 'running' by a process that died as failed. Call it while holding the run's
   * lock: a file has one lock (no run of it is really running); a shared schema one per project
   * (only runs sharing a project with `projects` are surely dead, others may be going now).
   */
  markStaleRuns(projects: readonly string[]): Promise<number>;
  /**
   * Adds to the request ledger the requests a killed run sent but never recorded (DuckDB: from the
   * journal beside the file; PostgreSQL records each request at once, so none). Under the lock.
   */
  recoverLostRequests(opts: LostRequestOptions): Promise<LostRequestRecovery>;
  /** The same requests, read only (a dry run counts them against the budget). */
  lostRequests(opts: LostRequestOptions): Promise<LedgerRow[]>;
  /**
   * Whether a sync of these projects holds the destination now: a 'running' run without one was
   * killed. (A DuckDB file has one lock for every project; a schema has one per project.)
   */
  syncRunning(projects: readonly string[]): Promise<boolean>;
  /** Where an event object's rows wait inside its transaction (the event stream, src/load/event-objects.ts). */
  eventStage(): EventStage;
  /** Writes `export`'s files (Parquet or CSV, by DuckDB's COPY on both destinations). */
  exportTables(opts: ExportOptions): Promise<ExportSummary>;
  /** What opening it left undone that the user should hear (PostgreSQL: views kept for a reader). */
  readonly notes?: readonly string[];
  close(): Promise<void>;
}

export interface LostRequestOptions {
  /** Epoch ms taken as now (tests): a journal time later than now plus a clock skew is skipped. */
  readonly now?: number;
  /** Only the requests of this budget scope (and those recorded without one). */
  readonly budgetScope?: string | undefined;
}

export interface LostRequestRecovery {
  /** Ledger rows added. */
  readonly added: number;
  /** One line for the log when records could not be read (naming the file and why). */
  readonly skippedMessage: string | undefined;
}

export interface FirstUseOptions {
  /** How the user named the destination, for the message (`--db` or `MINTLIFY_ETL_DB`). */
  readonly source: string;
  /** The default destination's path: created with its folder without asking. */
  readonly defaultPath: string;
}

/** What a run that may create the destination needs to know, and undo. */
export interface FirstUse {
  /** The destination existed before the run. */
  readonly existed: boolean;
  /** It exists now and did not before. */
  created(): boolean;
  /** Removes what the run created when it holds no loaded data (a refused first run promises nothing written). */
  dropIfEmpty(): Promise<void>;
}

/** Held for the length of a sync; a second sync of the same project meets it and exits 5. */
export interface RunLock {
  /** What holds it, for messages (a lock file, or the advisory locks of a schema). */
  readonly path: string;
  release(): Promise<void>;
}

/**
 * - `write`: opened to write (created and migrated when needed), held briefly (run records).
 * - `writer`: the sync's window writer (DuckDB: under a small memory limit).
 * - `read`: a reader's view, never written; may be an upgraded copy of an older DuckDB file.
 */
export type OpenPurpose = 'write' | 'writer' | 'read';

/** Where a destination lives, before it is opened: what `--db` named. */
export interface Place {
  readonly kind: Dialect;
  readonly label: string;
  /**
   * A DuckDB file is held by one process at a time: a writer lets go of it while it waits on the
   * API so that readers get in. PostgreSQL readers never wait for a writer.
   */
  readonly handsOver: boolean;
  /** The file that holds the destination, when it is one: no output file may ever replace it. */
  readonly file?: string | undefined;
  /** Refuses a place that cannot hold a destination, before anything is written or fetched. */
  check(): void;
  /**
   * Refuses, before anything irreversible happens elsewhere (an agent job created), a destination
   * that cannot take a write: a path that cannot be a database; a server that refuses us.
   */
  checkWritable(): Promise<void>;
  /** Refuses a destination that does not exist yet (a command that adds to what sync wrote never creates one). */
  requireExisting(): Promise<void>;
  /**
   * Runs a user's SQL (`query`) where it cannot write anything, and hands its result to `consume`
   * as it streams; `timeoutMs` bounds the whole query where the destination can cancel it.
   */
  runUserQuery<T>(
    sql: string,
    opts: { readonly timeoutMs?: number | undefined },
    consume: (stream: QueryStream) => Promise<T>,
  ): Promise<T>;
  /** Whether a destination exists there already (a file, or the schema with its tables). */
  exists(): Promise<boolean>;
  /**
   * The run's lock over these projects: one sync per project at a time. `onLost`: the lock went
   * away while held (PostgreSQL: its connection broke), and another run may take the projects.
   */
  lock(projects: readonly string[], opts?: { readonly onLost?: (err: Error) => void }): Promise<RunLock>;
  /** `read` never creates anything: a destination that does not exist is a usage error. */
  open(purpose: OpenPurpose): Promise<Destination>;
  /**
   * The lock of `lock`, when taking it creates nothing (a DuckDB file's lock lives beside the file:
   * none without the file; a schema's locks need no schema).
   */
  lockIfExists(projects: readonly string[]): Promise<RunLock | undefined>;
  /** Creates what a new destination needs before it is first opened to write (a file's folder). */
  makeRoom(): Promise<void>;
  /**
   * Before a run that may create the destination: refuses a new one where it looks like a typo
   * (a file in a folder that does not exist), and says afterwards whether one was created.
   */
  firstUse(opts: FirstUseOptions): FirstUse;
  /** Where a run's requests are recorded as they happen, so that a kill never loses one. */
  requestLedger(opts: {
    readonly runId: string;
    readonly budgetScope?: string | undefined;
  }): Promise<RunRequestLedger>;
}

/**
 * A run's requests as they happen. The budget calls `granted` before a request is sent (awaited:
 * a request whose grant cannot be recorded does not go) and `refunded` when it never reached the
 * server. DuckDB commits ledger rows with the writer's batches, so its `answered` leaves the row to
 * the writer (false) and a journal file covers a kill; PostgreSQL records it at once (true).
 */
export interface RunRequestLedger {
  granted(at: number): void | Promise<void>;
  refunded(at: number): void;
  /** Whether the row is recorded now; false: the caller hands it to the writer. */
  answered(row: LedgerRow): boolean;
  /** Every row recorded (and the DuckDB journal removed): call once the run's records are written. */
  finish(): Promise<void>;
  /** Lets go of what it holds without finishing (a run that failed): safe after finish, and twice. */
  close(): Promise<void>;
}
