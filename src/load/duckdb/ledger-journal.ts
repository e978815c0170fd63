import { appendFileSync, closeSync, rmSync } from 'node:fs';
import { openRegularForWriteSync, readRegularFileSync } from '../../util/regular-file.js';
import { realDbPath } from './file-lock.js';
import { appendLedger, recountRunRequests, type LedgerRow } from '../runs.js';
import type { SqlSession } from '../session.js';

/**
 * The request ledger reaches the database with the writer's commits, so a process killed with
 * SIGKILL loses the rows of requests it sent since the last commit, and the next run would
 * start believing it has more budget than the server will give it. The journal closes that
 * gap: one line per request, appended synchronously when the budget grants it (the bytes are
 * in the kernel before the request leaves, so they survive a kill of the process), read back
 * by the next run that holds the lock.
 */
export class LedgerJournal {
  readonly path: string;
  #fd: number | undefined;
  /** Written on each line, so that a recovered request counts against the budget it spent. */
  readonly #scope: string | undefined;

  constructor(dbPath: string, opts: { budgetScope?: string | undefined } = {}) {
    // Beside the real file, like the lock: a run through another name of the database must find it.
    this.path = `${realDbPath(dbPath)}.requests.jsonl`;
    this.#scope = opts.budgetScope;
  }

  /** Starts an empty journal for a run (the previous one must have been recovered first). */
  open(): void {
    this.#fd = openRegularForWriteSync(this.path, 'the request journal');
  }

  /** Records one granted request. Synchronous on purpose: it must be written before the request is sent. */
  record(runId: string, at: number): void {
    if (this.#fd === undefined) return;
    appendFileSync(this.#fd, `${JSON.stringify({ runId, at, scope: this.#scope })}\n`);
  }

  /** A granted request never reached the server: the next run must not count it either. */
  refund(runId: string, at: number): void {
    if (this.#fd === undefined) return;
    appendFileSync(this.#fd, `${JSON.stringify({ runId, at, refund: true })}\n`);
  }

  /** Lets go of the file, which stays for the next run to recover (the run did not finish). */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** The run recorded its ledger in the database: the journal has nothing left to tell. */
  remove(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.path, { force: true });
  }
}

/** A journaled request whose answer never came is counted as answered this long after its grant. */
export const UNANSWERED_MS = 30_000;

/** How far ahead of our clock a journal time may be (the journal may come from a clock a little ahead). */
export const CLOCK_SKEW_MS = 5 * 60_000;

// No request of this tool was sent before 2000: an earlier time is a corrupt line, not history.
const EARLIEST_MS = Date.UTC(2000, 0, 1);

const LOST_SEQ_BASE = 1_000_000_000;

export interface JournalOptions {
  /** Epoch ms taken as now (tests): a journal time later than now + CLOCK_SKEW_MS is skipped. */
  now?: number;
}

/** `lostRequests` for one budget: the lost requests of this scope and those journaled without one. */
export interface LostRequestOptions extends JournalOptions {
  budgetScope?: string | undefined;
}

type SkipReason = 'future' | 'early' | 'garbled';

interface JournalRead {
  /** Grant times by run id, in file order. */
  byRun: Map<string, number[]>;
  /** The budget scope each run's lines name (none in journals written before scopes). */
  scopes: Map<string, string>;
  skipped: Record<SkipReason, number>;
  firstSkippedLine: number | undefined;
}

/**
 * One pass over the journal. A line that is not an entry, or whose time no request can have (an
 * entry dated in the future would hold the budget until that date; one beyond the int64 range
 * would make every sync fail on insert), is counted and left out. A cut-short last line is what a
 * kill leaves behind, and blank lines say nothing: both are ignored without counting.
 */
function readJournal(text: string, nowMs: number): JournalRead {
  const read: JournalRead = {
    byRun: new Map(),
    scopes: new Map(),
    skipped: { future: 0, early: 0, garbled: 0 },
    firstSkippedLine: undefined,
  };
  const lines = text.split('\n');
  const latest = nowMs + CLOCK_SKEW_MS;
  const refunds = new Map<string, number[]>();
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const entry = classify(raw, latest);
    if (typeof entry === 'string') {
      if (entry === 'garbled' && i === lines.length - 1) return;
      read.skipped[entry]++;
      read.firstSkippedLine ??= i + 1;
      return;
    }
    if (entry.scope !== undefined && !entry.refund) read.scopes.set(entry.runId, entry.scope);
    const into = entry.refund ? refunds : read.byRun;
    const times = into.get(entry.runId);
    if (times) times.push(entry.at);
    else into.set(entry.runId, [entry.at]);
  });
  for (const [runId, refunded] of refunds) {
    const times = read.byRun.get(runId);
    if (times) read.byRun.set(runId, withoutRefunds(times, refunded));
  }
  return read;
}

/** The grants minus the refunded ones (requests that never reached the server), one for one. */
function withoutRefunds(times: readonly number[], refunded: readonly number[]): number[] {
  const left = new Map<number, number>();
  for (const at of refunded) left.set(at, (left.get(at) ?? 0) + 1);
  return times.filter((at) => {
    const n = left.get(at) ?? 0;
    if (n === 0) return true;
    left.set(at, n - 1);
    return false;
  });
}

interface JournalEntry {
  runId: string;
  at: number;
  refund: boolean;
  scope: string | undefined;
}

function classify(raw: string, latest: number): SkipReason | JournalEntry {
  let entry: unknown;
  try {
    entry = JSON.parse(raw);
  } catch {
    return 'garbled';
  }
  if (typeof entry !== 'object' || entry === null) return 'garbled';
  const { runId, at, refund, scope } = entry as {
    runId?: unknown;
    at?: unknown;
    refund?: unknown;
    scope?: unknown;
  };
  if (typeof runId !== 'string' || typeof at !== 'number' || Number.isNaN(at)) return 'garbled';
  if (at > latest) return 'future';
  if (at < EARLIEST_MS) return 'early';
  return { runId, at, refund: refund === true, scope: typeof scope === 'string' ? scope : undefined };
}

function skippedMessage(path: string, read: JournalRead, nowMs: number): string | undefined {
  const { future, early, garbled } = read.skipped;
  const total = future + early + garbled;
  if (total === 0) return undefined;
  const parts = [
    future > 0
      ? `${future} dated in the future (after ${new Date(nowMs + CLOCK_SKEW_MS).toISOString()})`
      : '',
    early > 0 ? `${early} dated before 2000` : '',
    garbled > 0 ? `${garbled} not a journal entry` : '',
  ].filter((p) => p !== '');
  return `${total} line(s) of ${path} skipped: ${parts.join(', ')} (first at line ${read.firstSkippedLine})`;
}

/** Ledger rows per run id, in one statement whatever the number of runs. */
async function recordedByRun(db: SqlSession, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.rows(
    `SELECT a.run_id, count(*) AS n
     FROM api_requests a JOIN (SELECT unnest($1::VARCHAR[]) AS run_id) j ON a.run_id = j.run_id
     GROUP BY a.run_id`,
    [[...runIds]],
  );
  return new Map(rows.map((r) => [String(r['run_id']), Number(r['n'])]));
}

export interface JournalLosses {
  /** Ledger rows for the requests the killed run(s) never recorded. */
  rows: LedgerRow[];
  /** Lines left out (not an entry, or a time no request can have). */
  skipped: number;
  /** One line for the log naming the file and why, when lines were skipped. */
  skippedMessage: string | undefined;
}

/**
 * The requests a killed run sent but never recorded in the ledger. A run's requests reach the
 * database in bulk, so a run with N journal lines and M ledger rows lost its last N - M: those
 * come back with their grant times, counted as if answered `UNANSWERED_MS` later (a conservative
 * guess: the server counts a request when it arrives, which we never saw). Reads only.
 */
export async function journalLosses(
  db: SqlSession,
  journalPath: string,
  opts: JournalOptions = {},
): Promise<JournalLosses> {
  const text = readRegularFileSync(journalPath, 'the request journal');
  if (text === undefined) return { rows: [], skipped: 0, skippedMessage: undefined };
  const now = opts.now ?? Date.now();
  const read = readJournal(text, now);
  const recorded = await recordedByRun(db, [...read.byRun.keys()]);
  const rows: LedgerRow[] = [];
  for (const [runId, times] of read.byRun) {
    // Taking the latest grants as the lost ones errs on the side of waiting longer.
    const lost = times.sort((a, b) => a - b).slice(recorded.get(runId) ?? 0);
    lost.forEach((at, i) =>
      rows.push({
        at,
        seq: LOST_SEQ_BASE + i,
        endpoint: 'visitors',
        projectId: null,
        status: null,
        durationMs: UNANSWERED_MS,
        runId,
        budgetScope: read.scopes.get(runId) ?? null,
      }),
    );
  }
  const { future, early, garbled } = read.skipped;
  return { rows, skipped: future + early + garbled, skippedMessage: skippedMessage(journalPath, read, now) };
}

/**
 * `journalLosses` without the report of skipped lines (the dry run only needs the rows); with a
 * budget scope, only the rows that count against it (its own, and those journaled without one).
 */
export async function lostRequests(
  db: SqlSession,
  journalPath: string,
  opts: LostRequestOptions = {},
): Promise<LedgerRow[]> {
  const { rows } = await journalLosses(db, journalPath, opts);
  const scope = opts.budgetScope;
  return scope === undefined ? rows : rows.filter((r) => r.budgetScope == null || r.budgetScope === scope);
}

export interface JournalRecovery {
  /** Ledger rows added. */
  added: number;
  /** Journal lines left out; `skippedMessage` says which and why, naming the file. */
  skipped: number;
  skippedMessage: string | undefined;
}

/**
 * Adds the journal's lost requests to the ledger, then deletes the journal (skipped lines
 * included: they can never become valid). Call it while holding the sync lock.
 */
export async function recoverJournalReport(
  db: SqlSession,
  journalPath: string,
  opts: JournalOptions = {},
): Promise<JournalRecovery> {
  const { rows, skipped, skippedMessage } = await journalLosses(db, journalPath, opts);
  await appendLedger(db, rows);
  await recountRunRequests(
    db,
    [...new Set(rows.map((r) => r.runId ?? ''))].filter((id) => id !== ''),
  );
  rmSync(journalPath, { force: true });
  return { added: rows.length, skipped, skippedMessage };
}
