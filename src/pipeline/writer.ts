import { setTimeout as sleep } from 'node:timers/promises';
import type { Destination, Place } from '../load/destination.js';
import { placeOf } from '../load/places.js';
import { parseDbTarget } from '../load/target.js';
import { appendLedger, updateRun, type LedgerRow, type RunProgress } from '../load/runs.js';
import { prepareWindow } from '../load/site-page-rows.js';
import { type PreparedWindow } from '../load/prepared-window.js';
import type { WindowLoad } from '../load/site-page-rows.js';

export interface FailedWindowRecord {
  readonly projectId: string;
  readonly stream?: string;
  readonly dateTo?: string;
  readonly day: string;
  readonly runId: string;
  readonly error: string;
  readonly attempts: number;
  readonly fetchedAt: Date;
}

type LoadJob = { kind: 'load'; load: PreparedWindow; done: (e?: unknown) => void };
type ReadJob = { kind: 'read'; read: (db: Destination) => Promise<void>; done: (e?: unknown) => void };
type Job = LoadJob | ReadJob | { kind: 'failed'; rec: FailedWindowRecord; done: (e?: unknown) => void };

/**
 * A batch stops growing past this many page rows, so one commit never holds a year of data in
 * memory. Two full DuckDB row groups (122,880 rows each): a batch that fills row groups has them
 * written straight to the file at commit instead of through the WAL and a checkpoint (measured:
 * 1M rows commit in 0.85 s as 125k-row batches, 1.9 s as 50k-row ones).
 */
export const DEFAULT_MAX_BATCH_ROWS = 250_000;
export const DEFAULT_MIN_BATCH_ROWS = 20_000;
export const DEFAULT_MAX_DELAY_MS = 200;

export interface WriterOptions {
  /** Close the file after this long without work, so readers can open it while we wait on the API. */
  readonly idleCloseMs?: number;
  readonly busyTimeoutMs?: number;
  /** Takes the request-ledger rows gathered since the last call; written with each batch. */
  readonly drainLedger: () => LedgerRow[];
  /**
   * The run's counters, written to its `sync_runs` row with each commit, so that `status` shows a
   * running (or killed) run as far as it got. `committed` counts what this writer has committed.
   */
  readonly runProgress?: (committed: { windows: number; rows: number }) => RunProgress;
  /** Page rows at which a batch stops taking more windows (default 250,000). */
  readonly maxBatchRows?: number;
  /**
   * Group-commit window: a batch is written once this many page rows wait (default 20,000) or the
   * oldest waiting window has waited `maxDelayMs` (default 200 ms), whichever comes first.
   */
  readonly minBatchRows?: number;
  readonly maxDelayMs?: number;
  /** DuckDB's memory_limit while the writer holds the file (default 32MB). */
  readonly memoryLimit?: string;
  /** The most that limit is raised to while a window with a huge value loads (default 512 MB). */
  readonly maxMemoryBytes?: number;
  /**
   * After holding the file this long through back-to-back commits, the writer closes it and waits
   * `yieldMs` before opening it again, so that a reader (status, query, report, export) gets in
   * during a busy sync (defaults 2 s and 400 ms: readers poll every 100 ms).
   */
  readonly holdMs?: number;
  readonly yieldMs?: number;
}

export const DEFAULT_HOLD_MS = 2_000;
export const DEFAULT_YIELD_MS = 400;

/**
 * The run's one writer. Windows arrive from concurrent fetchers and are group-committed: the
 * windows waiting when a batch is due (enough rows, or the oldest has waited long enough) go into
 * one transaction (a commit costs about 15 ms whatever its size, so one per day was the loader's
 * main cost); windows that finish while a batch is being written form the next one. Each
 * window's promise settles when its batch commits (or fails). The database file is opened when
 * there is work and closed when the run goes quiet (waiting on the budget), never held across
 * long waits.
 */
export class WindowWriter {
  readonly #place: Place;
  readonly #opts: WriterOptions;
  readonly #queue: Job[] = [];
  #db: Destination | undefined;
  #pumping: Promise<void> | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #queuedRows = 0;
  #flushing = false;
  #closing = false;
  #opens = 0;
  #openedAt = 0;
  /** The writer does not open the file again before this (epoch ms): a reader's turn. */
  #resumeAt = 0;
  readonly #committed = { windows: 0, rows: 0 };

  /** `target`: the destination, or a DuckDB file's path. */
  constructor(target: Place | string, opts: WriterOptions) {
    this.#place =
      typeof target === 'string'
        ? placeOf(parseDbTarget(target), {
            duckdb: {
              ...(opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: opts.busyTimeoutMs } : {}),
              ...(opts.memoryLimit !== undefined ? { writerMemoryLimit: opts.memoryLimit } : {}),
            },
          })
        : target;
    this.#opts = opts;
  }

  /** How many times the file was opened (the benchmark and tests watch the open/close cycle). */
  get opens(): number {
    return this.#opens;
  }

  get isOpen(): boolean {
    return this.#db !== undefined;
  }

  /**
   * Resolves once the window is committed; rejects if its checks or its transaction failed (the
   * day stays as it was). The window is checked and turned into load-ready text at once, so
   * that its row objects are garbage before it waits for a commit.
   */
  load(window: WindowLoad): Promise<void> {
    return this.loadPrepared(() => prepareWindow(window));
  }

  /**
   * A window of any stream, prepared when it reaches the writer (a window that `prepare`
   * refuses fails alone): resolves once committed, like `load`.
   */
  loadPrepared(prepare: () => PreparedWindow): Promise<void> {
    let load: PreparedWindow;
    try {
      load = prepare();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error('load failed', { cause: e }));
    }
    this.#queuedRows += load.rows;
    return this.#push((done) => ({ kind: 'load', load, done }));
  }

  recordFailure(rec: FailedWindowRecord): Promise<void> {
    return this.#push((done) => ({ kind: 'failed', rec, done }));
  }

  /**
   * Reads the database once every load queued before it is committed (a stream planned from
   * what other streams loaded in this run): the writer holds the file, so reads go through it.
   */
  read<T>(fn: (db: Destination) => Promise<T>): Promise<T> {
    let out: T | undefined;
    return this.#push((done) => ({
      kind: 'read',
      read: async (db) => {
        out = await fn(db);
      },
      done,
    })).then(() => out as T);
  }

  /**
   * Writes pending ledger rows, then `last` (the run's record) through the same open file, and
   * closes it.
   */
  async close(last?: (db: Destination) => Promise<void>): Promise<void> {
    this.#closing = true;
    this.#flushing = true;
    this.#kick();
    while (this.#pumping) await this.#pumping;
    clearTimeout(this.#flushTimer);
    clearTimeout(this.#idleTimer);
    const rows = this.#opts.drainLedger();
    if (rows.length > 0 || last !== undefined) {
      const db = await this.#open();
      if (rows.length > 0) await appendLedger(db.session, rows);
      await last?.(db);
    }
    await this.#closeDb();
  }

  #push(make: (done: (e?: unknown) => void) => Job): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push(
        make((e?: unknown) =>
          e === undefined
            ? resolve()
            : reject(e instanceof Error ? e : new Error('load failed', { cause: e })),
        ),
      );
      clearTimeout(this.#idleTimer);
      this.#kick();
    });
  }

  /**
   * Starts writing when a batch is worth a commit (each costs a DELETE per table, the inserts
   * and a WAL sync whatever its size; measured on a 365-day sync, small batches kept the main
   * thread busy in DuckDB for 2 s of 18). A failure record, a full batch, the delay running out
   * or close() start it at once.
   */
  #kick(): void {
    if (this.#pumping || this.#queue.length === 0) return;
    const due =
      this.#flushing ||
      this.#queuedRows >= (this.#opts.minBatchRows ?? DEFAULT_MIN_BATCH_ROWS) ||
      this.#queue.some((j) => j.kind !== 'load');
    if (!due) {
      this.#flushTimer ??= setTimeout(() => {
        this.#flushTimer = undefined;
        this.#flushing = true;
        this.#kick();
      }, this.#opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
      return;
    }
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      this.#yieldIfHeldLong();
      if (!this.#closing) this.#flushing = false;
      if (this.#queue.length > 0) this.#kick();
      else this.#scheduleIdleClose();
    });
  }

  /** One batch (or one failure record) per call; the caller decides when the next one is due. */
  async #pump(): Promise<void> {
    const job = this.#queue.shift();
    if (!job) return;
    if (job.kind === 'load') {
      this.#queuedRows -= job.load.rows;
      await this.#loadBatch(this.#takeBatch(job));
      return;
    }
    try {
      const db = await this.#open();
      if (job.kind === 'read') await job.read(db);
      else {
        await db.markWindowFailed(job.rec);
        await this.#writeLedger(db);
      }
      job.done();
    } catch (e) {
      job.done(e ?? new Error('load failed'));
    }
  }

  /** `first` and the loads queued right behind it, up to the row cap; a failure record ends the batch (order kept). */
  #takeBatch(first: LoadJob): LoadJob[] {
    const cap = this.#opts.maxBatchRows ?? DEFAULT_MAX_BATCH_ROWS;
    const batch = [first];
    let rows = first.load.rows;
    for (let next = this.#queue[0]; next?.kind === 'load'; next = this.#queue[0]) {
      if (rows + next.load.rows > cap) break;
      this.#queue.shift();
      this.#queuedRows -= next.load.rows;
      batch.push(next);
      rows += next.load.rows;
    }
    return batch;
  }

  async #loadBatch(ready: readonly LoadJob[]): Promise<void> {
    let db: Destination;
    try {
      db = await this.#open();
    } catch (e) {
      for (const r of ready) r.done(e ?? new Error('load failed'));
      return;
    }
    try {
      await db.loadBatch(
        ready.map((r) => r.load),
        this.#batchOptions(),
      );
      this.#count(ready);
      await this.#writeLedger(db);
      for (const r of ready) r.done();
    } catch (e) {
      if (ready.length === 1) {
        ready[0]?.done(e ?? new Error('load failed'));
        return;
      }
      // The whole batch rolled back; one window at a time finds the one that cannot load
      // without holding the others hostage to it.
      for (const r of ready) {
        try {
          await db.loadBatch([r.load], this.#batchOptions());
          this.#count([r]);
          await this.#writeLedger(db);
          r.done();
        } catch (e1) {
          r.done(e1 ?? new Error('load failed'));
        }
      }
    }
  }

  #batchOptions(): { maxMemoryBytes?: number } {
    const max = this.#opts.maxMemoryBytes;
    return max !== undefined ? { maxMemoryBytes: max } : {};
  }

  #count(loaded: readonly LoadJob[]): void {
    this.#committed.windows += loaded.length;
    for (const r of loaded) this.#committed.rows += r.load.rows;
  }

  /** The ledger rows gathered so far and the run's counters: bookkeeping that follows each commit. */
  async #writeLedger(db: Destination): Promise<void> {
    const rows = this.#opts.drainLedger();
    if (rows.length > 0) await appendLedger(db.session, rows);
    const progress = this.#opts.runProgress?.({ ...this.#committed });
    if (progress) await updateRun(db.session, progress);
  }

  /** Hands the file over between batches once it has been held for a while (see `holdMs`). */
  #yieldIfHeldLong(): void {
    if (this.#closing || this.#db === undefined || !this.#place.handsOver) return;
    if (Date.now() - this.#openedAt < (this.#opts.holdMs ?? DEFAULT_HOLD_MS)) return;
    void this.#closeDb();
    this.#resumeAt = Date.now() + (this.#opts.yieldMs ?? DEFAULT_YIELD_MS);
  }

  async #open(): Promise<Destination> {
    if (!this.#db) {
      const pause = this.#resumeAt - Date.now();
      if (pause > 0) await sleep(pause);
      const db = await this.#place.open('writer');
      this.#db = db;
      this.#opens++;
      this.#openedAt = Date.now();
    }
    return this.#db;
  }

  #scheduleIdleClose(): void {
    clearTimeout(this.#idleTimer);
    // A PostgreSQL writer keeps its connection: readers never wait for it.
    if (this.#queue.length > 0 || !this.#place.handsOver) return;
    this.#idleTimer = setTimeout(() => {
      if (!this.#pumping && this.#queue.length === 0) void this.#closeDb();
    }, this.#opts.idleCloseMs ?? 500);
    this.#idleTimer.unref();
  }

  async #closeDb(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    await db?.close();
  }
}
