import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MintlifyClient } from '../api/client.js';
import type { ApiKey } from '../api/key.js';
import { AuthError, EtlError, EXIT, HttpStatusError, RateLimitError, UsageError } from '../errors.js';
import {
  mergePlans,
  planProject,
  type PlannedWindow,
  type PlanOptions,
  type ProjectPlan,
} from '../extract/plan.js';
import type { QualityKind } from '../extract/quality.js';
import { fetchWindow } from '../extract/window-pager.js';
import { checkDbPath, openDatabase, type Database } from '../load/database.js';
import { LedgerJournal, lostRequests, recoverJournal } from '../load/ledger-journal.js';
import { acquireLock } from '../load/lock.js';
import {
  averagePagesPerWindow,
  finishRun,
  markStaleRuns,
  readDeferredDays,
  readLedgerSince,
  readSyncState,
  startRun,
  type LedgerRow,
} from '../load/runs.js';
import { todayUtc, type Day } from '../util/day.js';
import type { RateLimitSpec } from '../util/duration.js';
import { formatDuration } from '../util/duration.js';
import type { Logger } from '../util/log.js';
import { estimateRun } from './estimate.js';
import { DayAdmission } from './admission.js';
import { RunBudget, stopReasonOf, type StopReason } from './limits.js';
import { noProgress, type ProgressSink, type ProgressState } from './progress.js';
import { WindowWriter } from './writer.js';

export interface SyncOptions {
  readonly projects: readonly string[];
  readonly from?: Day | undefined;
  readonly to?: Day | undefined;
  readonly lookback: number;
  readonly dbPath: string;
  readonly rateLimit: RateLimitSpec;
  readonly maxRequests?: number | undefined;
  readonly maxDurationMs?: number | undefined;
  readonly maxWaitMs: number;
  readonly concurrency: number;
  readonly includeToday: boolean;
  readonly dryRun: boolean;
  readonly apiUrl: string;
  /** Required unless dryRun. */
  readonly apiKey?: ApiKey | undefined;
  readonly logger: Logger;
  readonly progress?: ProgressSink;
  readonly now?: () => number;
  /** Test and benchmark knobs for the HTTP client. */
  readonly backoff?: { minMs: number; maxMs: number };
  readonly idleCloseMs?: number;
  /** Aborting stops new days and in-flight requests; finished days are still loaded. */
  readonly signal?: AbortSignal;
}

export type SyncStatus = 'succeeded' | 'incomplete' | 'failed' | 'dry-run';

export interface WindowFailure {
  readonly projectId: string;
  readonly day: Day;
  readonly code: string;
  readonly message: string;
}

export interface SyncSummary {
  readonly runId: string | null;
  readonly status: SyncStatus;
  readonly exitCode: number;
  readonly db: string;
  readonly projects: readonly string[];
  readonly dateFrom: Day | null;
  readonly dateTo: Day | null;
  readonly windows: { planned: number; loaded: number; failed: number; deferred: number };
  readonly requests: number;
  readonly retries: number;
  readonly rows: number;
  readonly warnings: { total: number; byKind: Partial<Record<QualityKind, number>> };
  readonly stopReason: StopReason | null;
  readonly budget: { rateLimit: string; spentBefore: number; freesAt: string | null };
  readonly durationMs: number;
  readonly failures: readonly WindowFailure[];
  readonly deferredDays: readonly string[];
  readonly plan?: {
    readonly days: readonly { projectId: string; day: Day; reason: string; partial: boolean }[];
    readonly estimatedRequests: number;
    readonly etaMs: number;
    readonly pagesPerDayFromHistory: boolean;
  };
  readonly error: string | null;
}

interface StateRead {
  plans: ProjectPlan[];
  ledger: number[];
  pagesPerWindow: Map<string, number | undefined>;
}

/**
 * One sync run: plan the days, fetch them through the shared budget with bounded concurrency,
 * load each finished day in its own transaction through a single writer, and keep the run
 * record. Throws only for failures of the whole run (usage, auth, database in use); window
 * failures are counted in the summary.
 */
export async function runSync(opts: SyncOptions): Promise<SyncSummary> {
  const now = opts.now ?? Date.now;
  const started = now();
  const log = opts.logger;
  if (!opts.dryRun && !opts.apiKey)
    throw new UsageError('no API key: set MINTLIFY_API_KEY or pass --api-key-file');
  // Planning against an empty state checks the range (from < to, no future) before the lock
  // or the database file exist: a usage error must leave nothing behind.
  planProject('check', { loadedDays: [], partialDays: [], deferredDays: [] }, planOptions(opts, now()));
  if (opts.dryRun) return dryRun(opts, started);

  checkDbPath(opts.dbPath);
  await mkdir(dirname(resolve(opts.dbPath)), { recursive: true });
  const lock = await acquireLock(opts.dbPath);
  try {
    const runId = randomUUID();
    const db = await openDatabase(opts.dbPath);
    let state: StateRead;
    try {
      const stale = await markStaleRuns(db);
      if (stale > 0)
        log.warn(
          `${stale} earlier run(s) ended without finishing (killed?); their unloaded days are planned again`,
        );
      const lost = await recoverJournal(db, new LedgerJournal(opts.dbPath).path);
      if (lost > 0)
        log.info(
          `${lost} request(s) of a run that was killed were added to the request ledger from its journal`,
        );
      state = await readState(db, opts, now());
      const windows = mergePlans(state.plans);
      const range = rangeOf(state.plans);
      await startRun(db, {
        runId,
        projectIds: [...opts.projects],
        dateFrom: range.from,
        dateTo: range.to,
        windowsPlanned: windows.length,
        plannedDays: windows.map((w) => `${w.projectId}:${w.day}`),
        startedAt: new Date(started),
      });
    } finally {
      db.close();
    }
    return await execute(opts, runId, state, started);
  } finally {
    await lock.release();
  }
}

function planOptions(opts: SyncOptions, nowMs: number): PlanOptions {
  return {
    today: todayUtc(nowMs),
    from: opts.from,
    to: opts.to,
    lookback: opts.lookback,
    includeToday: opts.includeToday,
  };
}

async function readState(db: Database, opts: SyncOptions, nowMs: number): Promise<StateRead> {
  const plans: ProjectPlan[] = [];
  const pagesPerWindow = new Map<string, number | undefined>();
  for (const projectId of opts.projects) {
    const s = await readSyncState(db, projectId);
    const deferredDays = await readDeferredDays(db, projectId);
    plans.push(
      planProject(
        projectId,
        {
          loadedDays: s.loadedDays,
          partialDays: s.partialDays,
          deferredDays,
          failedDays: s.failedDays,
          fetchedAt: s.fetchedAt,
        },
        planOptions(opts, nowMs),
      ),
    );
    pagesPerWindow.set(projectId, await averagePagesPerWindow(db, projectId));
  }
  // Agent calls have their own limit at the service; only analytics requests share this one.
  const ledger = await readLedgerSince(db, nowMs - opts.rateLimit.windowMs, { endpoints: ['visitors'] });
  return { plans, ledger, pagesPerWindow };
}

function rangeOf(plans: readonly ProjectPlan[]): { from: Day | null; to: Day | null } {
  const days = plans.flatMap((p) => p.windows.map((w) => w.day)).sort();
  const tos = plans.map((p) => p.to).sort();
  return { from: days[0] ?? null, to: tos.at(-1) ?? null };
}

async function dryRun(opts: SyncOptions, started: number): Promise<SyncSummary> {
  const now = opts.now ?? Date.now;
  let state: StateRead;
  if (existsSync(opts.dbPath)) {
    const db = await openDatabase(opts.dbPath, { readOnly: true });
    try {
      state = await readState(db, opts, now());
      // A killed run's unrecorded requests count against the budget the real run will meet.
      const lost = await lostRequests(db, new LedgerJournal(opts.dbPath).path);
      state.ledger.push(...lost.map((r) => r.at + r.durationMs));
    } finally {
      db.close();
    }
  } else {
    const today = todayUtc(now());
    state = {
      plans: opts.projects.map((p) =>
        planProject(
          p,
          { loadedDays: [], partialDays: [], deferredDays: [] },
          { today, from: opts.from, to: opts.to, lookback: opts.lookback, includeToday: opts.includeToday },
        ),
      ),
      ledger: [],
      pagesPerWindow: new Map(),
    };
  }
  const windows = mergePlans(state.plans);
  let requests = 0;
  let fromHistory = true;
  for (const w of windows) {
    const avg = state.pagesPerWindow.get(w.projectId);
    if (avg === undefined) fromHistory = false;
    requests += Math.max(1, Math.round(avg ?? 1));
  }
  const budget = new RunBudget(opts.rateLimit, {}, { spent: state.ledger, now });
  const spent = budget.spentInWindow();
  const est = estimateRun(requests, opts.rateLimit, spent);
  const range = rangeOf(state.plans);
  return {
    ...emptySummary(opts, 'dry-run', started, now()),
    dateFrom: range.from,
    dateTo: range.to,
    windows: { planned: windows.length, loaded: 0, failed: 0, deferred: 0 },
    budget: { rateLimit: opts.rateLimit.text, spentBefore: spent, freesAt: freesAtIso(budget, spent) },
    plan: {
      days: windows.map((w) => ({
        projectId: w.projectId,
        day: w.day,
        reason: w.reason,
        partial: w.partial,
      })),
      estimatedRequests: est.requests,
      etaMs: est.etaMs,
      pagesPerDayFromHistory: fromHistory,
    },
  };
}

function freesAtIso(budget: RunBudget, spent: number): string | null {
  return spent > 0 ? new Date(budget.freesAt()).toISOString() : null;
}

function emptySummary(opts: SyncOptions, status: SyncStatus, started: number, ended: number): SyncSummary {
  return {
    runId: null,
    status,
    exitCode: EXIT.ok,
    db: opts.dbPath,
    projects: [...opts.projects],
    dateFrom: null,
    dateTo: null,
    windows: { planned: 0, loaded: 0, failed: 0, deferred: 0 },
    requests: 0,
    retries: 0,
    rows: 0,
    warnings: { total: 0, byKind: {} },
    stopReason: null,
    budget: { rateLimit: opts.rateLimit.text, spentBefore: 0, freesAt: null },
    durationMs: ended - started,
    failures: [],
    deferredDays: [],
    error: null,
  };
}

async function execute(
  opts: SyncOptions,
  runId: string,
  state: StateRead,
  started: number,
): Promise<SyncSummary> {
  const now = opts.now ?? Date.now;
  const log = opts.logger;
  const progress = opts.progress ?? noProgress;
  const windows = mergePlans(state.plans);
  const deadline = opts.maxDurationMs !== undefined ? started + opts.maxDurationMs : undefined;
  const journal = new LedgerJournal(opts.dbPath);
  journal.open();
  const limits = { maxRequests: opts.maxRequests, deadline };
  const budget = new RunBudget(opts.rateLimit, limits, {
    spent: state.ledger,
    now,
    onGrant: (at) => journal.record(runId, at),
  });
  const spentBefore = budget.spentInWindow();

  const ledger: LedgerRow[] = [];
  let seq = 0;
  const p: ProgressState = {
    windowsTotal: windows.length,
    windowsDone: 0,
    requests: 0,
    rows: 0,
    waitingUntil: undefined,
  };
  let retries = 0;
  const client = new MintlifyClient({
    baseUrl: opts.apiUrl,
    apiKey: opts.apiKey as ApiKey,
    budget,
    maxWaitMs: opts.maxWaitMs,
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
    onRequest: (e) => {
      p.requests++;
      ledger.push({
        at: e.at,
        seq: seq++,
        endpoint: e.endpoint,
        projectId: e.projectId,
        status: e.status,
        durationMs: Math.round(e.durationMs),
        runId,
      });
      progress.update(p);
    },
    onRetry: (e) => {
      retries++;
      log.debug(`retry ${e.attempt} of ${e.endpoint} in ${formatDuration(e.delayMs)}: ${e.error.message}`);
    },
  });
  const writer = new WindowWriter(opts.dbPath, {
    drainLedger: () => ledger.splice(0),
    ...(opts.idleCloseMs !== undefined ? { idleCloseMs: opts.idleCloseMs } : {}),
  });

  let loaded = 0;
  let rows = 0;
  const failures: WindowFailure[] = [];
  const deferred: PlannedWindow[] = [];
  const byKind: Partial<Record<QualityKind, number>> = {};
  let warnings = 0;
  // Assigned from inside the workers; an object keeps TypeScript from narrowing them to null.
  const run: { stopReason: StopReason | null; fatal: EtlError | undefined } = {
    stopReason: null,
    fatal: undefined,
  };
  const deadProjects = new Map<string, string>();

  const fail = async (w: PlannedWindow, e: unknown, attempts: number): Promise<void> => {
    const err = e instanceof Error ? e : new Error(String(e));
    const code = e instanceof EtlError ? e.code : 'E_INTERNAL';
    failures.push({ projectId: w.projectId, day: w.day, code, message: err.message });
    log.error(`${w.projectId} ${w.day}: ${err.message}`);
    try {
      await writer.recordFailure({
        projectId: w.projectId,
        day: w.day,
        runId,
        error: `${code}: ${err.message}`,
        attempts,
        fetchedAt: new Date(now()),
      });
    } catch (recErr) {
      log.debug(`could not record the failed window: ${String(recErr)}`);
    }
  };

  const pendingLoads = new Set<Promise<void>>();
  let pendingRows = 0;
  const order = new Map(windows.map((w, i) => [w, i]));
  const admission = new DayAdmission({
    budget,
    limits,
    maxWaitMs: opts.maxWaitMs,
    now,
    history: state.pagesPerWindow,
  });
  const stopping = (): boolean => {
    if (opts.signal?.aborted) run.stopReason ??= 'interrupted';
    return run.fatal !== undefined || run.stopReason !== null;
  };
  const work = async (w: PlannedWindow): Promise<void> => {
    if (stopping()) {
      deferred.push(w);
      return;
    }
    const dead = deadProjects.get(w.projectId);
    if (dead !== undefined) {
      failures.push({ projectId: w.projectId, day: w.day, code: 'E_HTTP', message: dead });
      return;
    }
    const admitted = await admission.admit(w.projectId, stopping);
    if (admitted === undefined || 'refused' in admitted) {
      if (admitted) run.stopReason ??= admitted.refused;
      deferred.push(w);
      return;
    }
    const flight = admitted;
    let fetchedPages: number | undefined;
    try {
      const fetched = await fetchWindow(client, w.projectId, w.day, w.dateTo, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        // The oldest day in flight gets the next request when the budget is short.
        priority: order.get(w) ?? 0,
        onPage: () => flight.pages++,
      });
      if (fetched.emptyTailPage)
        log.info(`${w.projectId} ${w.day}: a page said hasMore but had no rows; the day ends there`);
      for (const q of fetched.warnings) {
        warnings++;
        byKind[q.kind] = (byKind[q.kind] ?? 0) + 1;
        log.warnOnce(
          q.kind,
          `data quality (${q.kind}), loaded as the API sent it: ${w.projectId} ${w.day} ${q.detail} (further cases are counted in the run record)`,
        );
      }
      // The worker fetches its next day while this one waits for the writer's next group
      // commit: waiting for the commit here left every worker idle for a transaction per day.
      // Unsettled loads are capped in rows, so memory stays bounded, never by the range.
      const n = fetched.pages.length;
      fetchedPages = fetched.pagesFetched;
      pendingRows += n;
      const load = writer
        .load({
          projectId: w.projectId,
          day: w.day,
          site: fetched.site,
          pages: fetched.pages,
          partial: w.partial,
          pagesFetched: fetched.pagesFetched,
          attempts: fetched.attempts,
          runId,
          fetchedAt: new Date(now()),
          apiTotalsTotal: fetched.site.total,
        })
        .then(
          () => {
            loaded++;
            rows += n;
            p.rows = rows;
          },
          (e: unknown) => {
            failures.push({
              projectId: w.projectId,
              day: w.day,
              code: e instanceof EtlError ? e.code : 'E_LOAD',
              message: `load failed: ${String((e as Error).message ?? e)}`,
            });
            log.error(`${w.projectId} ${w.day}: load failed, the day is unchanged: ${(e as Error).message}`);
          },
        );
      pendingLoads.add(load);
      void load.finally(() => {
        pendingLoads.delete(load);
        pendingRows -= n;
      });
      while (pendingRows > MAX_PENDING_ROWS && pendingLoads.size > 0) await Promise.race(pendingLoads);
    } catch (e) {
      if (opts.signal?.aborted) {
        // Whatever the aborted request threw, the day was not fetched: it waits for the next run.
        run.stopReason ??= 'interrupted';
        deferred.push(w);
      } else if (e instanceof AuthError) {
        run.fatal ??= e;
        deferred.push(w);
      } else if (e instanceof RateLimitError) {
        run.stopReason ??= stopReasonOf(e);
        deferred.push(w);
      } else if (e instanceof HttpStatusError && e.status === 429) {
        // Still refused after every retry: the server's budget is spent; more requests now
        // would only be refused too, so the rest waits for the next run.
        run.stopReason ??= 'rate-limited';
        deferred.push(w);
      } else if (e instanceof HttpStatusError && e.status === 404 && e.request.path.includes('/analytics/')) {
        const msg = `project ${w.projectId} was not found (404): check --project / MINTLIFY_PROJECT_ID against the dashboard's API keys page`;
        if (!deadProjects.has(w.projectId)) log.error(msg);
        deadProjects.set(w.projectId, msg);
        failures.push({ projectId: w.projectId, day: w.day, code: e.code, message: msg });
      } else {
        await fail(w, e, 1);
      }
    } finally {
      admission.finish(flight, w.projectId, fetchedPages);
      p.windowsDone++;
      progress.update(p);
    }
  };

  progress.start(p);
  // The budget does not announce its waits; sampling it keeps the bar's "waiting" honest.
  const ticker = setInterval(() => {
    const wait = budget.waitTimeMs();
    p.waitingUntil = wait > 0 ? now() + wait : undefined;
    progress.update(p);
  }, 1_000);
  ticker.unref();
  try {
    await runPool(windows, Math.max(1, opts.concurrency), work);
    await Promise.all(pendingLoads);
  } finally {
    clearInterval(ticker);
    progress.stop();
    await client.close();
    await writer.close();
  }

  const failedCount = failures.length;
  let status: SyncStatus;
  if (run.fatal) status = 'failed';
  else if (deferred.length > 0) status = 'incomplete';
  else if (failedCount > 0) status = 'incomplete';
  else status = 'succeeded';
  const deferredDays = deferred.map((w) => `${w.projectId}:${w.day}`).sort();
  const error =
    run.fatal?.message ?? (failedCount > 0 ? `${failedCount} window(s) failed after retries` : null);

  const db = await openDatabase(opts.dbPath);
  try {
    await finishRun(db, {
      runId,
      status,
      windowsLoaded: loaded,
      windowsFailed: failedCount,
      windowsDeferred: deferred.length,
      requests: p.requests,
      retries,
      rowsLoaded: rows,
      warnings,
      error,
      // Failed days go in too: a failure that could not be recorded in sync_windows (the
      // database refused the load) must still reach the next run's plan.
      deferredDays: [...new Set([...deferredDays, ...failures.map((f) => `${f.projectId}:${f.day}`)])].sort(),
      finishedAt: new Date(now()),
    });
  } finally {
    db.close();
  }
  // Every request is in the database now (the writer drained the ledger when it closed).
  journal.remove();
  if (run.fatal) throw run.fatal;

  if (run.stopReason) {
    log.info(
      `stopped early (${run.stopReason}): ${deferred.length} day(s) deferred; the next run picks them up without flags`,
    );
  }
  const range = rangeOf(state.plans);
  return {
    runId,
    status,
    exitCode:
      run.stopReason === 'interrupted' ? EXIT.interrupted : failedCount > 0 ? EXIT.windowsFailed : EXIT.ok,
    db: opts.dbPath,
    projects: [...opts.projects],
    dateFrom: range.from,
    dateTo: range.to,
    windows: { planned: windows.length, loaded, failed: failedCount, deferred: deferred.length },
    requests: p.requests,
    retries,
    rows,
    warnings: { total: warnings, byKind },
    stopReason: run.stopReason,
    budget: {
      rateLimit: opts.rateLimit.text,
      spentBefore,
      freesAt: freesAtIso(budget, budget.spentInWindow()),
    },
    durationMs: now() - started,
    failures,
    deferredDays,
    error,
  };
}

/** Fetched page rows that may wait for the writer before fetchers pause (a few MB of memory). */
const MAX_PENDING_ROWS = 60_000;

/** Runs `fn` over items with at most `n` in flight, in order of the list. */
async function runPool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
