import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ApiKey } from '../api/key.js';
import type { Timeouts } from '../api/client.js';
import { EXIT, UsageError } from '../errors.js';
import {
  mergePlans,
  planProject,
  windowKey,
  type PlannedWindow,
  type PlanOptions,
  type ProjectPlan,
  type ProjectState,
  type SkippedWindow,
} from '../extract/plan.js';
import type { QualityKind } from '../extract/quality.js';
import { checkDbPath, openDatabase, type Database } from '../load/database.js';
import { openReadable } from '../load/readable.js';
import { LedgerJournal, lostRequests, recoverJournalReport } from '../load/ledger-journal.js';
import { acquireLock } from '../load/lock.js';
import {
  averagePagesPerWindow,
  markStaleRuns,
  pagesByWindow,
  readDeferredDays,
  readLedgerSince,
  readSyncState,
  startRun,
} from '../load/runs.js';
import { addDays, todayUtc, type Day } from '../util/day.js';
import type { RateLimitSpec } from '../util/duration.js';
import type { Logger } from '../util/log.js';
import { DEFAULT_MAX_THREADS } from '../streams/assistant-threads.js';
import { estimateRun } from './estimate.js';
import { RunBudget, type StopReason } from './limits.js';
import type { ProgressSink } from './progress.js';
import { freesAtIso, SyncRun } from './sync-run.js';
import {
  ANALYTICS_ENDPOINTS,
  DEFAULT_STREAMS,
  STREAMS,
  streamByName,
  type StreamDefinition,
} from '../streams/index.js';
import { makeFolder } from '../util/file-errors.js';

export interface SyncOptions {
  readonly projects: readonly string[];
  /** The streams to sync (default DEFAULT_STREAMS). */
  readonly streams?: readonly StreamDefinition[];
  /** --max-pages STREAM=N: pages per window at most, by stream; a capped window is recorded truncated. */
  readonly maxPages?: ReadonlyMap<string, number>;
  /** --feedback-lookback: days a feedback window is re-read after it ends (statuses change). */
  readonly feedbackLookback?: number;
  /** --max-threads: assistant threads fetched per project and run (assistant_threads). */
  readonly maxThreads?: number;
  /** --period-pages: the period grains fetch every page's uniques, not only the site's. */
  readonly periodPages?: boolean;
  readonly from?: Day | undefined;
  readonly to?: Day | undefined;
  readonly lookback: number;
  /** Fetch settled loaded days again (the service has re-classified traffic before). */
  readonly refresh?: boolean;
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
  /** Test knob: the most the writer raises DuckDB's memory_limit to for a huge value (default 512 MB). */
  readonly writerMaxMemoryBytes?: number;
  /** The most one request attempt may take, headers and body (default: the client's, 90 s). */
  readonly requestTimeoutMs?: number;
  /** The client's connect, headers and body timeouts (default: the client's, 10 s / 30 s / 30 s). */
  readonly timeouts?: Timeouts;
  /** The run's id (the CLI makes it first, for its log lines); a new one by default. */
  readonly runId?: string;
  /** Aborting stops new days and in-flight requests; finished days are still loaded. */
  readonly signal?: AbortSignal;
}

export type SyncStatus = 'succeeded' | 'incomplete' | 'failed' | 'dry-run';

export interface WindowFailure {
  readonly projectId: string;
  readonly stream: string;
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
  /** The streams the run synced. */
  readonly streams: readonly string[];
  /** Projects the API answered 404 for: their days were dropped and the run exits 2. */
  readonly unknownProjects: readonly string[];
  readonly dateFrom: Day | null;
  readonly dateTo: Day | null;
  /** `dropped`: days of unknown projects, neither fetched nor left for the next run. */
  readonly windows: { planned: number; loaded: number; failed: number; deferred: number; dropped: number };
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
    readonly days: readonly {
      projectId: string;
      stream: string;
      day: Day;
      /** The window's end (exclusive): ranges of several days for the event streams and periods. */
      dateTo: Day;
      /** An item window's record id (an assistant thread). */
      item?: string;
      reason: string;
      partial: boolean;
    }[];
    /** Loaded days left out because they were settled when fetched (--refresh fetches them). */
    readonly skipped: readonly SkippedWindow[];
    /** Per stream: windows planned and requests expected (history, else 1 a window: a floor). */
    readonly streams: readonly {
      stream: string;
      windows: number;
      estimatedRequests: number;
      fromHistory: boolean;
    }[];
    readonly estimatedRequests: number;
    readonly etaMs: number;
    readonly pagesPerDayFromHistory: boolean;
  };
  readonly error: string | null;
}

export interface StateRead {
  plans: ProjectPlan[];
  ledger: number[];
  pagesPerWindow: Map<string, number | undefined>;
  /** Pages each loaded window took when last fetched, by windowKey: what --dry-run prices a re-read at. */
  pagesOfWindow: Map<string, number>;
  range: { from: Day | null; to: Day | null };
  /** Windows the streams planned after the loads (threads) are expected to add, for the progress total. */
  lateEstimate?: number;
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
  streamsOf(opts);
  if (opts.dryRun) return dryRun(opts, started);

  checkDbPath(opts.dbPath);
  makeFolder(dirname(resolve(opts.dbPath)), `--db ${opts.dbPath}`);
  const lock = await acquireLock(opts.dbPath);
  try {
    const runId = opts.runId ?? randomUUID();
    const db = await openDatabase(opts.dbPath);
    let state: StateRead;
    try {
      const stale = await markStaleRuns(db);
      if (stale > 0)
        log.warn(
          `${stale} earlier run(s) ended without finishing (killed?); their unloaded days are planned again`,
        );
      const recovery = await recoverJournalReport(db, new LedgerJournal(opts.dbPath).path, { now: now() });
      if (recovery.skippedMessage !== undefined) log.warn(recovery.skippedMessage);
      if (recovery.added > 0)
        log.info(
          `${recovery.added} request(s) of a run that was killed were added to the request ledger from its journal`,
        );
      state = await readState(db, opts, now());
      state.lateEstimate = await lateEstimate(db, opts);
      const windows = mergePlans(
        state.plans,
        STREAMS.map((s) => s.name),
      );
      await startRun(db, {
        runId,
        projectIds: [...opts.projects],
        dateFrom: state.range.from,
        dateTo: state.range.to,
        windowsPlanned: windows.length,
        plannedDays: windows.map(windowKey),
        streams: streamsOf(opts).map((s) => s.name),
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
    refresh: opts.refresh === true,
    periodPages: opts.periodPages === true,
    ...(opts.feedbackLookback !== undefined ? { lookbackByStream: { feedback: opts.feedbackLookback } } : {}),
  };
}

/** Each project and stream is planned on its own: the incremental rule applies per stream. */
async function readState(db: Database, opts: SyncOptions, nowMs: number): Promise<StateRead> {
  const plans: ProjectPlan[] = [];
  const pagesPerWindow = new Map<string, number | undefined>();
  const pagesOfWindow = new Map<string, number>();
  for (const projectId of opts.projects) {
    for (const stream of streamsOf(opts)) {
      const { name } = stream;
      const s = await readSyncState(db, projectId, name);
      const deferredDays = await readDeferredDays(db, projectId, name);
      const state = { ...s, deferredDays };
      plans.push(planStream(stream, projectId, state, planOptions(opts, nowMs)));
      pagesPerWindow.set(admissionKey(projectId, name), await averagePagesPerWindow(db, projectId, name));
      for (const [day, pages] of await pagesByWindow(db, projectId, name))
        pagesOfWindow.set(windowKey({ projectId, stream: name, day }), pages);
    }
  }
  // Agent calls have their own limit at the service; every analytics endpoint shares this one.
  const ledger = await readLedgerSince(db, nowMs - opts.rateLimit.windowMs, {
    endpoints: ANALYTICS_ENDPOINTS,
  });
  return { plans, ledger, pagesPerWindow, pagesOfWindow, range: rangeOf(plans) };
}

/**
 * The stream's own plan when it has one (ranges of days), else one window per day. Only a
 * --max-pages cut makes a truncated window worth fetching again; the endpoint's own cut does not.
 */
function planStream(
  stream: StreamDefinition,
  projectId: string,
  loaded: ProjectState,
  opts: PlanOptions,
): ProjectPlan {
  const state = stream.truncatedByEndpoint === true ? { ...loaded, truncatedDays: [] } : loaded;
  return stream.plan ? stream.plan(projectId, state, opts) : planProject(projectId, state, opts, stream.name);
}

/**
 * --dry-run's view of the streams planned after the others load (assistant threads): what the
 * database holds now asks for (a real run also sees the turns it loads itself).
 */
async function latePlans(db: Database, opts: SyncOptions): Promise<ProjectPlan[]> {
  const out: ProjectPlan[] = [];
  for (const { projectId, windows } of await planLateWindows(db, opts, opts.projects)) {
    const days = windows.map((w) => w.day).sort();
    const to = days.at(-1);
    if (to !== undefined)
      out.push({ projectId, from: days[0] ?? to, to: addDays(to, 1), windows, skipped: [] });
  }
  return out;
}

/**
 * How many windows the late streams will add, for the progress total: what the database asks for
 * now, or their per-run cap when the run's other streams may load new items first.
 */
async function lateEstimate(db: Database, opts: SyncOptions): Promise<number> {
  const cap = opts.maxThreads ?? DEFAULT_MAX_THREADS;
  const growing = streamsOf(opts).some((s) => s.planAfterLoads === undefined);
  let n = 0;
  for (const { windows } of await planLateWindows(db, opts, opts.projects))
    n += growing ? Math.max(windows.length, cap) : windows.length;
  return n;
}

/**
 * The windows of the streams planned from what is loaded (assistant threads), per project and
 * stream: what the run fetches once its other windows are committed, and what --dry-run lists.
 */
export async function planLateWindows(
  db: Database,
  opts: SyncOptions,
  projects: readonly string[],
): Promise<{ projectId: string; windows: readonly PlannedWindow[] }[]> {
  const late = { maxItems: opts.maxThreads ?? DEFAULT_MAX_THREADS, refresh: opts.refresh === true };
  const out: { projectId: string; windows: readonly PlannedWindow[] }[] = [];
  for (const projectId of projects)
    for (const s of streamsOf(opts))
      if (s.planAfterLoads) out.push({ projectId, windows: await s.planAfterLoads(db, projectId, late) });
  return out;
}

export function streamsOf(opts: SyncOptions): readonly StreamDefinition[] {
  return opts.streams ?? DEFAULT_STREAMS.map(streamByName);
}

/** Pages per window are a property of a project's stream: admission and estimates key them so. */
export function admissionKey(projectId: string, stream: string): string {
  return `${projectId}\u0000${stream}`;
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
    const db = await openReadable(opts.dbPath);
    try {
      state = await readState(db, opts, now());
      state.plans.push(...(await latePlans(db, opts)));
      state.range = rangeOf(state.plans);
      // A killed run's unrecorded requests count against the budget the real run will meet.
      const lost = await lostRequests(db, new LedgerJournal(opts.dbPath).path, { now: now() });
      state.ledger.push(...lost.map((r) => r.at + r.durationMs));
    } finally {
      db.close();
    }
  } else {
    const empty = { loadedDays: [], partialDays: [], deferredDays: [] };
    const plans = opts.projects.flatMap((p) =>
      streamsOf(opts).map((s) => planStream(s, p, empty, planOptions(opts, now()))),
    );
    state = { plans, ledger: [], pagesPerWindow: new Map(), pagesOfWindow: new Map(), range: rangeOf(plans) };
  }
  const windows = mergePlans(
    state.plans,
    STREAMS.map((s) => s.name),
  );
  let requests = 0;
  let fromHistory = true;
  const byStream = new Map<string, { windows: number; estimatedRequests: number; fromHistory: boolean }>();
  for (const w of windows) {
    const own = state.pagesOfWindow.get(windowKey(w));
    const avg = own ?? state.pagesPerWindow.get(admissionKey(w.projectId, w.stream));
    const n = Math.max(1, Math.round(avg ?? 1));
    if (avg === undefined) fromHistory = false;
    requests += n;
    const s = byStream.get(w.stream) ?? { windows: 0, estimatedRequests: 0, fromHistory: true };
    byStream.set(w.stream, {
      windows: s.windows + 1,
      estimatedRequests: s.estimatedRequests + n,
      fromHistory: s.fromHistory && avg !== undefined,
    });
  }
  const budget = new RunBudget(opts.rateLimit, {}, { spent: state.ledger, now });
  const spent = budget.spentInWindow();
  const est = estimateRun(requests, opts.rateLimit, spent);
  return {
    ...emptySummary(opts, 'dry-run', started, now()),
    dateFrom: state.range.from,
    dateTo: state.range.to,
    windows: { planned: windows.length, loaded: 0, failed: 0, deferred: 0, dropped: 0 },
    budget: { rateLimit: opts.rateLimit.text, spentBefore: spent, freesAt: freesAtIso(budget) },
    plan: {
      days: windows.map((w) => ({
        projectId: w.projectId,
        stream: w.stream,
        day: w.day,
        dateTo: w.dateTo,
        ...(w.item !== undefined ? { item: w.item.id } : {}),
        reason: w.reason,
        partial: w.partial,
      })),
      skipped: state.plans.flatMap((p) => p.skipped),
      streams: streamsOf(opts).map((s) => ({
        stream: s.name,
        ...(byStream.get(s.name) ?? { windows: 0, estimatedRequests: 0, fromHistory: true }),
      })),
      estimatedRequests: est.requests,
      etaMs: est.etaMs,
      pagesPerDayFromHistory: fromHistory,
    },
  };
}

function emptySummary(opts: SyncOptions, status: SyncStatus, started: number, ended: number): SyncSummary {
  return {
    runId: null,
    status,
    exitCode: EXIT.ok,
    db: opts.dbPath,
    projects: [...opts.projects],
    streams: streamsOf(opts).map((s) => s.name),
    unknownProjects: [],
    dateFrom: null,
    dateTo: null,
    windows: { planned: 0, loaded: 0, failed: 0, deferred: 0, dropped: 0 },
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
  return new SyncRun(opts, runId, state, started).execute();
}
