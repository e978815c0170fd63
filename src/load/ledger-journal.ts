import { appendFileSync, closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import type { Database } from './database.js';
import { appendLedger, recountRunRequests, type LedgerRow } from './runs.js';
import { queryRows } from './sql.js';

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

  constructor(dbPath: string) {
    this.path = `${dbPath}.requests.jsonl`;
  }

  /** Starts an empty journal for a run (the previous one must have been recovered first). */
  open(): void {
    this.#fd = openSync(this.path, 'w');
  }

  /** Records one granted request. Synchronous on purpose: it must be written before the request is sent. */
  record(runId: string, at: number): void {
    if (this.#fd === undefined) return;
    appendFileSync(this.#fd, `${JSON.stringify({ runId, at })}\n`);
  }

  /** A granted request never reached the server: the next run must not count it either. */
  refund(runId: string, at: number): void {
    if (this.#fd === undefined) return;
    appendFileSync(this.#fd, `${JSON.stringify({ runId, at, refund: true })}\n`);
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

/**
 * The requests a killed run sent but never recorded in the ledger. A run's requests reach the
 * database in bulk, so a run with N journal lines and M ledger rows lost its last N - M: those
 * come back with their grant times, counted as if answered `UNANSWERED_MS` later (a conservative
 * guess: the server counts a request when it arrives, which we never saw). Reads only.
 */
export async function lostRequests(db: Database, journalPath: string): Promise<LedgerRow[]> {
  let text: string;
  try {
    text = readFileSync(journalPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const byRun = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    // The last line may be cut short by the kill: it is skipped, like any line that is not ours.
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const { runId, at, refund } = entry as { runId?: unknown; at?: unknown; refund?: unknown };
    if (typeof runId !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) continue;
    const times = byRun.get(runId) ?? [];
    if (refund === true) {
      const i = times.lastIndexOf(at);
      if (i >= 0) times.splice(i, 1);
    } else times.push(at);
    byRun.set(runId, times);
  }
  const missing: LedgerRow[] = [];
  for (const [runId, times] of byRun) {
    const rows = await queryRows(db.connection, 'SELECT count(*) AS n FROM api_requests WHERE run_id = $1', [
      runId,
    ]);
    const recorded = Number(rows[0]?.['n'] ?? 0);
    // Taking the latest grants as the lost ones errs on the side of waiting longer.
    const lost = times.sort((a, b) => a - b).slice(recorded);
    missing.push(
      ...lost.map((at, i) => ({
        at,
        seq: 1_000_000_000 + i,
        endpoint: 'visitors',
        projectId: null,
        status: null,
        durationMs: UNANSWERED_MS,
        runId,
      })),
    );
  }
  return missing;
}

/**
 * Adds the journal's lost requests to the ledger, then deletes the journal. Call it while
 * holding the sync lock. Returns the rows added.
 */
export async function recoverJournal(db: Database, journalPath: string): Promise<number> {
  const missing = await lostRequests(db, journalPath);
  await appendLedger(db, missing);
  await recountRunRequests(
    db,
    [...new Set(missing.map((r) => r.runId ?? ''))].filter((id) => id !== ''),
  );
  rmSync(journalPath, { force: true });
  return missing.length;
}
