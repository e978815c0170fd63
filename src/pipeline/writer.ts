import type { Database } from '../load/database.js';
import { openDatabase } from '../load/database.js';
import { appendLedger, type LedgerRow } from '../load/runs.js';
import { loadWindow, markWindowFailed, type WindowLoad } from '../load/window-loader.js';

export interface FailedWindowRecord {
  readonly projectId: string;
  readonly day: string;
  readonly runId: string;
  readonly error: string;
  readonly attempts: number;
  readonly fetchedAt: Date;
}

type Job =
  | { kind: 'load'; load: WindowLoad; done: (e?: unknown) => void }
  | { kind: 'failed'; rec: FailedWindowRecord; done: (e?: unknown) => void };

export interface WriterOptions {
  /** Close the file after this long without work, so readers can open it while we wait on the API. */
  readonly idleCloseMs?: number;
  readonly busyTimeoutMs?: number;
  /** Takes the request-ledger rows gathered since the last call; written with each batch. */
  readonly drainLedger: () => LedgerRow[];
}

/**
 * The run's one writer. Windows arrive from concurrent fetchers; they are loaded one at a
 * time, each in its own transaction. The database file is opened when there is work and
 * closed when the run goes quiet (waiting on the budget), never held across long waits.
 */
export class WindowWriter {
  readonly #dbPath: string;
  readonly #opts: WriterOptions;
  readonly #queue: Job[] = [];
  #db: Database | undefined;
  #pumping: Promise<void> | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #opens = 0;

  constructor(dbPath: string, opts: WriterOptions) {
    this.#dbPath = dbPath;
    this.#opts = opts;
  }

  /** How many times the file was opened (the benchmark and tests watch the open/close cycle). */
  get opens(): number {
    return this.#opens;
  }

  get isOpen(): boolean {
    return this.#db !== undefined;
  }

  /** Resolves once the window is committed; rejects if its transaction failed (the day stays as it was). */
  load(load: WindowLoad): Promise<void> {
    return this.#push((done) => ({ kind: 'load', load, done }));
  }

  recordFailure(rec: FailedWindowRecord): Promise<void> {
    return this.#push((done) => ({ kind: 'failed', rec, done }));
  }

  /** Writes pending ledger rows and closes the file. */
  async close(): Promise<void> {
    while (this.#pumping) await this.#pumping;
    clearTimeout(this.#idleTimer);
    const rows = this.#opts.drainLedger();
    if (rows.length > 0) {
      const db = await this.#open();
      await appendLedger(db, rows);
    }
    this.#closeDb();
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

  #kick(): void {
    if (this.#pumping) return;
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      // A job pushed after the loop's last shift() but before this callback would be stranded.
      if (this.#queue.length > 0) this.#kick();
      else this.#scheduleIdleClose();
    });
  }

  async #pump(): Promise<void> {
    for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
      try {
        const db = await this.#open();
        if (job.kind === 'load') await loadWindow(db, job.load);
        else await markWindowFailed(db, job.rec);
        const rows = this.#opts.drainLedger();
        if (rows.length > 0) await appendLedger(db, rows);
        job.done();
      } catch (e) {
        job.done(e ?? new Error('load failed'));
      }
    }
  }

  async #open(): Promise<Database> {
    if (!this.#db) {
      this.#db = await openDatabase(this.#dbPath, {
        ...(this.#opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: this.#opts.busyTimeoutMs } : {}),
      });
      this.#opens++;
    }
    return this.#db;
  }

  #scheduleIdleClose(): void {
    clearTimeout(this.#idleTimer);
    if (this.#queue.length > 0) return;
    this.#idleTimer = setTimeout(() => {
      if (!this.#pumping && this.#queue.length === 0) this.#closeDb();
    }, this.#opts.idleCloseMs ?? 500);
    this.#idleTimer.unref();
  }

  #closeDb(): void {
    const db = this.#db;
    this.#db = undefined;
    db?.close();
  }
}
