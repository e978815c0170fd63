import { RequestBudget } from '../api/budget.js';
import { MintlifyClient } from '../api/client.js';
import type { ApiKey } from '../api/key.js';
import { EXIT, HttpStatusError, isEtlError, RateLimitError, UnreachableError } from '../errors.js';
import { appendLedger, readLedgerSince, type LedgerRow } from '../load/runs.js';
import { addDays, todayUtc } from '../util/day.js';
import { formatDuration, type RateLimitSpec } from '../util/duration.js';
import { ANALYTICS_ENDPOINTS, type StreamDefinition } from '../streams/index.js';
import { explainNotFound } from './not-found.js';
import type { Place } from '../load/destination.js';
import { placeOrFile } from '../load/places.js';

export interface CheckOptions {
  readonly projects: readonly string[];
  /** One request each, for every project. */
  readonly streams: readonly StreamDefinition[];
  readonly apiUrl: string;
  readonly apiKey: ApiKey;
  /** What `--db` names (a DuckDB file or a PostgreSQL URL), when `place` is not given (tests). */
  readonly dbPath?: string;
  /** The destination whose ledger counts the budget (default: what dbPath names). */
  readonly place?: Place;
  readonly rateLimit: RateLimitSpec;
  /**
   * The budget scope requests are counted in (src/api/budget-scope.ts resolveBudgetScope): the
   * ledger rows written carry it, and the ledger read counts only it and rows without one.
   * Undefined: rows without a scope, and every row counted (as before scopes).
   */
  readonly budgetScope?: string | undefined;
  readonly now?: () => number;
}

export interface ProjectCheck {
  readonly projectId: string;
  readonly stream: string;
  readonly ok: boolean;
  /** Not checked at all: the request budget (ours or the server's 429) left no request for it. */
  readonly budgetSpent?: true;
  /** What the answer said: the day's totals when it worked, the reason when not. */
  readonly detail: string;
}

export interface CheckResult {
  readonly exitCode: number;
  readonly apiUrl: string;
  readonly projects: readonly ProjectCheck[];
  /** Requests that reached the service (each one of the hour's budget). */
  readonly requests: number;
  /** The budget by this database's ledger after the check (other tools on the same key are not in it). */
  readonly budget: {
    readonly rateLimit: string;
    readonly spent: number;
    readonly remaining: number;
    /** When the oldest request in the window leaves it (ISO), when any is in it. */
    readonly freesAt: string | null;
  };
  /** The database did not exist: it was created to record the check's requests for the next sync. */
  readonly createdDb: boolean;
}

/** Refusals the service answers before counting a request against its budget. */
const NOT_COUNTED = new Set([401, 403, 404]);

/**
 * One request per project and stream (yesterday's first page) to prove the URL, the key, the
 * project and each endpoint's access before a nightly job relies on them. The requests are recorded in the database's
 * ledger when there is one, so the next sync counts them against the budget.
 */
export async function runCheck(opts: CheckOptions): Promise<CheckResult> {
  const now = opts.now ?? Date.now;
  const place = placeOrFile(opts);
  place.check();
  const hasDb = await place.exists();
  // A sync of these projects is spending the same budget: its ledger is not written yet.
  const lock = await place.lockIfExists(opts.projects);
  try {
    const spent = hasDb ? await ledger(place, opts, now()) : [];
    const budget = new RequestBudget(opts.rateLimit, { spent, now });
    const rows: LedgerRow[] = [];
    const client = new MintlifyClient({
      baseUrl: opts.apiUrl,
      apiKey: opts.apiKey,
      budget,
      // A spent budget is reported at once, with when it frees, rather than waited out.
      maxWaitMs: 0,
      now,
      maxAttempts: 2,
      backoff: { minMs: 500, maxMs: 1_000 },
      onRequest: (e) => {
        if (e.reached)
          rows.push({
            ...e,
            seq: rows.length,
            runId: null,
            durationMs: Math.round(e.durationMs),
            budgetScope: opts.budgetScope ?? null,
          });
      },
    });
    const projects: ProjectCheck[] = [];
    let exitCode: number = EXIT.ok;
    try {
      outer: for (const projectId of opts.projects) {
        for (const stream of opts.streams) {
          const r = await checkStream(client, opts.apiUrl, projectId, stream, now());
          projects.push(r.check);
          exitCode = Math.max(exitCode, r.exitCode);
          if (r.stop === 'all') break outer;
          if (r.stop === 'project') break;
        }
      }
    } finally {
      await client.close();
    }
    // Without a database the requests would be forgotten and the first sync would overspend the
    // hour: the database is created for them, unless the service counted none (a refused key).
    const createdDb = !hasDb && rows.some((r) => r.status === null || !NOT_COUNTED.has(r.status));
    if (createdDb) await place.makeRoom();
    if ((hasDb || createdDb) && rows.length > 0) await record(place, rows);
    const inWindow = budget.spentInWindow();
    return {
      exitCode,
      apiUrl: opts.apiUrl,
      projects,
      requests: rows.length,
      budget: {
        rateLimit: opts.rateLimit.text,
        spent: inWindow,
        remaining: Math.max(0, opts.rateLimit.limit - inWindow),
        freesAt: inWindow > 0 ? new Date(budget.freesAt()).toISOString() : null,
      },
      createdDb,
    };
  } finally {
    await lock?.release();
  }
}

/**
 * One request of one stream for yesterday: the stream's own first page (its pager capped at one
 * page), so what is proven is exactly what a sync would ask.
 */
async function checkStream(
  client: MintlifyClient,
  apiUrl: string,
  projectId: string,
  stream: StreamDefinition,
  nowMs: number,
): Promise<{ check: ProjectCheck; exitCode: number; stop: 'project' | 'all' | false }> {
  const today = todayUtc(nowMs);
  const w = { projectId, stream: stream.name, day: addDays(today, -1), dateTo: today, partial: false };
  const base = { projectId, stream: stream.name };
  if (stream.planAfterLoads !== undefined) {
    // Its requests name a record another stream loaded (a thread id): there is nothing to ask
    // without one, and the key and project are proven by the other streams' requests.
    const detail = 'not checked on its own: each request needs a thread id that the assistant stream loads';
    return { check: { ...base, ok: true, detail }, exitCode: EXIT.ok, stop: false };
  }
  try {
    const f = await stream.fetch(client, w, { maxPages: 1 });
    const detail = `answered: yesterday ${f.rows}${f.truncated ? '+' : ''} row(s) on the first page`;
    return { check: { ...base, ok: true, detail }, exitCode: EXIT.ok, stop: false };
  } catch (e) {
    if (e instanceof HttpStatusError && e.status === 404) {
      const nf = explainNotFound(apiUrl, projectId, e);
      return {
        check: { ...base, ok: false, detail: nf.message },
        exitCode: EXIT.usage,
        stop: nf.kind === 'url' ? 'all' : 'project',
      };
    }
    const spent = budgetSpent(e, nowMs);
    if (spent !== undefined)
      return {
        check: { ...base, ok: false, budgetSpent: true, detail: spent },
        exitCode: EXIT.budgetSpent,
        stop: 'all',
      };
    // A refused key or an API that cannot be reached answers the same for every project. A spent
    // budget (whose error means "deferred" to a sync, exit 0) checked nothing: that is not a pass.
    const exitCode =
      isEtlError(e) && e.exitCode !== EXIT.internal && e.exitCode !== EXIT.ok
        ? e.exitCode
        : EXIT.windowsFailed;
    const detail =
      e instanceof UnreachableError
        ? `the API at ${e.baseUrl} cannot be reached (${e.shortReason}): check --api-url / MINTLIFY_API_URL and that the server is up`
        : e instanceof Error
          ? e.message
          : String(e);
    return { check: { ...base, ok: false, detail }, exitCode, stop: 'all' };
  }
}

/** Why nothing could be asked when the budget (ours or the server's) is spent; undefined otherwise. */
function budgetSpent(e: unknown, nowMs: number): string | undefined {
  if (e instanceof RateLimitError) {
    // The budget's own reason (spent by the ledger, or a pause the API asked for), without its
    // "longer than the allowed wait" tail: check never waits.
    const cut = e.message.indexOf(': the next request');
    const why = cut > 0 ? e.message.slice(0, cut) : e.message;
    const freesAt = e.context['freesAt'];
    const at = typeof freesAt === 'string' ? freesAt : new Date(nowMs + e.waitMs).toISOString();
    return `not checked: ${why}; the next request can go at ${at} (in ${formatDuration(e.waitMs)})`;
  }
  if (e instanceof HttpStatusError && e.status === 429) {
    return "not checked: the API answered 429: the organization's request budget is spent (by this database's runs or another tool using the same organization); try again later";
  }
  return undefined;
}

async function ledger(place: Place, opts: CheckOptions, nowMs: number): Promise<number[]> {
  const db = await place.open('read');
  try {
    return await readLedgerSince(db.session, nowMs - opts.rateLimit.windowMs, {
      endpoints: ANALYTICS_ENDPOINTS,
      ...(opts.budgetScope !== undefined ? { budgetScope: opts.budgetScope } : {}),
    });
  } finally {
    await db.close();
  }
}

async function record(place: Place, rows: readonly LedgerRow[]): Promise<void> {
  const db = await place.open('write');
  try {
    await appendLedger(db.session, rows);
  } finally {
    await db.close();
  }
}
