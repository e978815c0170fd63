/**
 * --timeout on PostgreSQL bounds the whole `query` command, not each statement or FETCH (a query
 * of many short FETCHes ran 36 s under --timeout 5). Two bounds, the server's and ours:
 *
 * - the server's: before each statement and each FETCH, statement_timeout is set to the time
 *   left, and idle_in_transaction_session_timeout too, so a reader that stops reading the output
 *   (a paused pager, a full pipe) does not hold the transaction, its snapshot and its locks;
 * - ours: a timer a little after the deadline, for when the server's bound did not end the
 *   command (a stalled network, a proxy, a server that ignores the setting): it cancels the
 *   running statement, then closes the connection, and the command fails with the timeout line.
 */
import pg from 'pg';
import { SqlError } from '../../errors.js';

/** How long after the deadline our own timer acts: the server's bound normally ends things first. */
export const CLIENT_GRACE_MS = 1_000;
/** How long a cancel request may take before the connection is closed instead. */
export const CANCEL_GRACE_MS = 2_000;

const TIMEOUT_HINT = 'raise --timeout, which bounds the whole query, or narrow the query';

/** The line of a query the server cancelled at the deadline (its statement_timeout). */
export function timeoutError(timeoutMs: number, cause?: unknown): SqlError {
  return new SqlError(
    `canceling statement due to statement timeout (after ${timeoutMs / 1000} s: ${TIMEOUT_HINT})`,
    { timeoutMs },
    cause !== undefined ? { cause } : undefined,
  );
}

/** The line of a query that was still going after the deadline, ended by our own timer or the server's idle bound. */
export function pastDeadlineError(timeoutMs: number, cause?: unknown): SqlError {
  return new SqlError(
    `the query ran past --timeout (${timeoutMs / 1000} s) and was stopped: ${TIMEOUT_HINT}`,
    { timeoutMs },
    cause !== undefined ? { cause } : undefined,
  );
}

interface ClientInternals {
  host?: string;
  port?: number;
  activeQuery?: unknown;
  connection?: { stream?: { destroy(): void } };
}

export class QueryDeadline {
  readonly #end: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #timers: NodeJS.Timeout[] = [];
  #fired = false;

  constructor(timeoutMs: number, now: () => number = Date.now) {
    this.#timeoutMs = timeoutMs;
    this.#now = now;
    this.#end = now() + timeoutMs;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Whether the deadline has passed (our timer fired, or the clock says so). */
  get passed(): boolean {
    return this.#fired || this.#now() >= this.#end;
  }

  /** Milliseconds left (at least 1), or the timeout error when none are. */
  remainingMs(): number {
    const left = Math.round(this.#end - this.#now());
    if (left <= 0 || this.#fired) throw pastDeadlineError(this.#timeoutMs);
    return left;
  }

  /**
   * The statement that sets the server's bounds to the time left: a query, not a SET, so that it
   * also takes the transaction's snapshot (after which PostgreSQL refuses read-write mode).
   */
  boundsSql(): string {
    const ms = this.remainingMs();
    return `SELECT set_config('statement_timeout', '${ms}', true), set_config('idle_in_transaction_session_timeout', '${ms}', true)`;
  }

  /** Starts our own timer on `client`: cancel the running statement, then close the connection. */
  arm(client: pg.ClientBase): void {
    const c = client as unknown as ClientInternals;
    const wait = Math.max(0, this.#end - this.#now()) + CLIENT_GRACE_MS;
    const cancel = setTimeout(() => {
      this.#fired = true;
      cancelActive(client);
      const close = setTimeout(() => c.connection?.stream?.destroy(), CANCEL_GRACE_MS);
      close.unref();
      this.#timers.push(close);
    }, wait);
    cancel.unref();
    this.#timers.push(cancel);
  }

  disarm(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers = [];
  }

  /** An error of a command that ran out of time becomes the timeout line; others stay as they are. */
  explain(e: unknown): unknown {
    if (e instanceof pg.DatabaseError && e.code === '57014' && /statement timeout/.test(e.message))
      return timeoutError(this.#timeoutMs, e);
    return this.passed && !(e instanceof SqlError) ? pastDeadlineError(this.#timeoutMs, e) : e;
  }
}

/** PostgreSQL's cancel request for the statement `client` is running, on a connection of its own. */
function cancelActive(client: pg.ClientBase): void {
  const c = client as unknown as ClientInternals;
  if (c.activeQuery === undefined || c.activeQuery === null) return;
  const canceller = new pg.Client({
    ...(c.host !== undefined ? { host: c.host } : {}),
    ...(c.port !== undefined ? { port: c.port } : {}),
  });
  // The cancel connection's own failures are not the command's: the close that follows is.
  const con = (canceller as unknown as { connection: NodeJS.EventEmitter }).connection;
  con.on('error', () => undefined);
  (canceller as unknown as { cancel(client: pg.ClientBase, query: unknown): void }).cancel(
    client,
    c.activeQuery,
  );
}
