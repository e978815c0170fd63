import { UNANSWERED_MS } from '../duckdb/ledger-journal.js';
import type { LedgerRow } from '../runs.js';
import { isoTime, type SqlSession } from '../session.js';

/**
 * Seq of the rows written when a request is granted, before it is sent: above any real seq (a run
 * numbers its requests from 0) and the journal's recovered rows (from 1e9), so they are told apart.
 */
export const PENDING_SEQ_BASE = 2_000_000_000;

export interface PgLedgerOptions {
  readonly runId: string;
  /** Written on every row (src/api/budget-scope.ts); null or absent: counts against every scope. */
  readonly budgetScope?: string | null | undefined;
}

const COLUMNS = 'requested_at, seq, endpoint, project_id, status, duration_ms, run_id, budget_scope';

/** One pending row of this run, the one granted at $3 if it is still there, else the oldest. */
const ONE_PENDING = `SELECT ctid FROM api_requests
  WHERE run_id = $1 AND seq >= ${PENDING_SEQ_BASE}
  ORDER BY (requested_at = $3::TIMESTAMPTZ) DESC, requested_at, seq LIMIT 1`;

/**
 * The PostgreSQL destination's request ledger, written as the run goes, so that a kill at any
 * instant loses nothing and no local file is needed (the DuckDB destination's LedgerJournal keeps
 * one because DuckDB commits the ledger only with its batches).
 *
 * Each granted request gets a row at once, before it is sent (`granted`, awaited): endpoint
 * 'visitors' and counted as answered UNANSWERED_MS after the grant, as the journal's recovery
 * counts a request whose answer it never saw. Its answer replaces one pending row of the run by the
 * real one in one statement (`answered`); a request that never reached the server removes one
 * (`refunded`). Pending rows are interchangeable: the one granted at the request's time goes when it
 * is still there, else the oldest, so the ones left standing are the latest, which errs on the
 * side of waiting. The next run counts what a killed run left
 * with no recovery step: its pending rows are ordinary ledger rows.
 *
 * Give it a session of its own in autocommit (a dedicated connection, search_path on the
 * destination's schema): on the loader's session a row would wait for the window transaction in
 * progress, and vanish with its rollback.
 */
export class PgRequestLedger {
  readonly #session: SqlSession;
  readonly #runId: string;
  readonly #scope: string | null;
  #pendingSeq = PENDING_SEQ_BASE;
  #writes: Promise<void> = Promise.resolve();
  #failure: Error | undefined;

  constructor(session: SqlSession, opts: PgLedgerOptions) {
    this.#session = session;
    this.#runId = opts.runId;
    this.#scope = opts.budgetScope ?? null;
  }

  /**
   * A request was granted at `at` and is about to be sent: resolves when its row is committed.
   * Await it before sending (RunBudget's onGrant); a rejection means the ledger cannot be written
   * and the request must not go.
   */
  granted(at: number): Promise<void> {
    const seq = this.#pendingSeq++;
    return this.#enqueue(async () => {
      await this.#session.run(
        `INSERT INTO api_requests (${COLUMNS})
         VALUES ($1::TIMESTAMPTZ, $2::BIGINT, 'visitors', NULL, NULL, $3::INTEGER, $4, $5)`,
        [isoTime(at), seq, UNANSWERED_MS, this.#runId, this.#scope],
      );
    });
  }

  /** The request granted at `at` never reached the server: it spent nothing (RunBudget's onRefund). */
  refunded(at: number): void {
    void this.#enqueue(async () => {
      await this.#session.run(`DELETE FROM api_requests WHERE ctid IN (${ONE_PENDING.replace('$3', '$2')})`, [
        this.#runId,
        isoTime(at),
      ]);
    });
  }

  /** A request reached the server: its real row replaces one pending row, in one statement. */
  answered(row: LedgerRow): void {
    void this.#enqueue(async () => {
      await this.#session.run(
        `WITH gone AS (DELETE FROM api_requests WHERE ctid IN (${ONE_PENDING}))
         INSERT INTO api_requests (${COLUMNS})
         VALUES ($3::TIMESTAMPTZ, $4::BIGINT, $5, $6, $7::INTEGER, $8::INTEGER, $1, $2)`,
        [
          this.#runId,
          row.budgetScope ?? this.#scope,
          isoTime(row.at),
          row.seq,
          row.endpoint,
          row.projectId,
          row.status,
          Math.round(row.durationMs),
        ],
      );
    });
  }

  /** Waits for every write so far; throws the first that failed (the run's ledger is then short). */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Writes go one after another, in the order the run reported them. */
  #enqueue(write: () => Promise<void>): Promise<void> {
    const done = this.#writes.then(write);
    this.#writes = done.catch((e: unknown) => {
      this.#failure ??=
        e instanceof Error ? e : new Error(`request ledger write failed: ${JSON.stringify(e)}`);
    });
    return done;
  }
}
