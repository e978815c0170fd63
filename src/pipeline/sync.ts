import { randomUUID } from 'node:crypto';
import { EXIT, UsageError } from '../errors.js';
import {
  mergePlans,
  planProject,
  windowKey,
  type PlanOptions,
  type ProjectPlan,
  type ProjectState,
} from '../extract/plan.js';
import type { Destination } from '../load/destination.js';
import { placeOrFile } from '../load/places.js';
import {
  averagePagesPerWindow,
  pagesByWindow,
  readDeferredDays,
  readLedgerSince,
  readSyncState,
  startRun,
} from '../load/runs.js';
import { addDays, todayUtc, type Day } from '../util/day.js';
import { DEFAULT_MAX_THREADS } from '../streams/names.js';
import { estimateRun, typicalPages } from './estimate.js';
import { DaysAhead } from './days-ahead.js';
import { RunBudget } from './limits.js';
import { freesAtIso, SyncRun, type StateRead } from './sync-run.js';
import { admissionKey } from './admission.js';
import { planLateWindows } from './late-windows.js';
import { streamNames, streamsOf, type SyncOptions } from './sync-options.js';
import { checkEventSettings, planEvents, type CheckedEvents, type EventsPlan } from './event-sync.js';
import { endEventsOnlyRun, runEventPhase, withEvents } from './event-run.js';
import type { SyncStatus, SyncSummary } from './sync-summary.js';
import { ANALYTICS_ENDPOINTS, STREAMS, type StreamDefinition } from '../streams/index.js';

// The run's options and summary have their own modules (so that the run itself can read them
// without importing this entry point back); callers keep importing them from here.
export type { SyncOptions } from './sync-options.js';
export type { SyncStatus, SyncSummary, WindowFailure } from './sync-summary.js';

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
  const eventsOnly = streamsOf(opts).length === 0;
  if (eventsOnly && opts.events === undefined)
    throw new UsageError(
      'no stream to sync: name API streams in --streams, or give --events with --streams events',
    );
  if (!opts.dryRun && !opts.apiKey && !eventsOnly)
    throw new UsageError('no API key: set MINTLIFY_API_KEY or pass --api-key-file');
  // Planning against an empty state checks the range (from < to, no future) before the lock
  // or the database file exist: a usage error must leave nothing behind.
  planProject('check', { loadedDays: [], partialDays: [], deferredDays: [] }, planOptions(opts, now()));
  // The event stream's mapping and class lists, refused before anything is locked or read.
  const events = opts.events === undefined ? undefined : checkEventSettings(opts.events, opts.projects);
  if (opts.dryRun) return dryRun(opts, started, events);

  const place = placeOrFile(opts);
  place.check();
  const lost = new AbortController();
  const lock = await place.lock(opts.projects, {
    onLost: (err) => {
      log.warn(
        `the run lost its lock on ${place.label} (${err.message.split('\n', 1)[0] ?? ''}): another run may take these projects now; stopping after the windows in flight, the next run continues`,
      );
      lost.abort(err);
    },
  });
  try {
    const runId = opts.runId ?? randomUUID();
    const dest = await place.open('write');
    for (const note of dest.notes ?? []) log.warn(note);
    const db = dest.session;
    let state: StateRead;
    try {
      const stale = await dest.markStaleRuns(opts.projects);
      if (stale > 0)
        log.warn(
          `${stale} earlier run(s) ended without finishing (killed?); their unloaded days are planned again`,
        );
      const recovery = await dest.recoverLostRequests({ now: now(), ...scopeOf(opts) });
      if (recovery.skippedMessage !== undefined) log.warn(recovery.skippedMessage);
      if (recovery.added > 0)
        log.info(
          `${recovery.added} request(s) of a run that was killed were added to the request ledger from its journal`,
        );
      state = await readState(dest, opts, now());
      if (!eventsOnly) state.lateEstimate = await lateEstimate(dest, opts);
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
        streams: streamNames(opts),
        startedAt: new Date(started),
      });
    } finally {
      await dest.close();
    }
    // The event stream first: it spends no request, so the budget's waits never hold it up.
    const loaded =
      events === undefined ? undefined : await runEventPhase(opts, events, place, runId, started);
    if (eventsOnly && loaded !== undefined) {
      const end = endEventsOnlyRun(loaded);
      const now = (opts.now ?? Date.now)();
      return {
        ...emptySummary(opts, end.status, started, now),
        runId,
        ...end,
        events: loaded,
        error: loaded.error,
      };
    }
    const summary = await execute({ ...opts, lockLost: lost.signal }, runId, state, started);
    return loaded === undefined ? summary : withEvents(summary, loaded);
  } finally {
    await lock.release();
  }
}

function scopeOf(opts: SyncOptions): { budgetScope?: string } {
  return opts.budgetScope !== undefined ? { budgetScope: opts.budgetScope } : {};
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
async function readState(dest: Destination, opts: SyncOptions, nowMs: number): Promise<StateRead> {
  const db = dest.session;
  const plans: ProjectPlan[] = [];
  const pagesPerWindow = new Map<string, number | undefined>();
  const pagesOfWindow = new Map<string, number>();
  const today = todayUtc(nowMs);
  const ahead = new DaysAhead(today);
  for (const projectId of opts.projects) {
    for (const stream of streamsOf(opts)) {
      const { name } = stream;
      const s = await readSyncState(db, projectId, name);
      ahead.add(name, s.loadedDays);
      const deferredDays = await readDeferredDays(db, projectId, name);
      const state = { ...s, deferredDays };
      plans.push(planStream(stream, projectId, state, planOptions(opts, nowMs)));
      pagesPerWindow.set(admissionKey(projectId, name), await averagePagesPerWindow(db, projectId, name));
      for (const [day, pages] of await pagesByWindow(db, projectId, name))
        pagesOfWindow.set(windowKey({ projectId, stream: name, day }), pages);
    }
  }
  const line = ahead.line();
  if (line !== undefined) opts.logger.warn(line);
  // Agent calls have their own limit at the service; every analytics endpoint shares this one.
  const ledger = await readLedgerSince(db, nowMs - opts.rateLimit.windowMs, {
    endpoints: ANALYTICS_ENDPOINTS,
    ...scopeOf(opts),
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
async function latePlans(db: Destination, opts: SyncOptions): Promise<ProjectPlan[]> {
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
async function lateEstimate(db: Destination, opts: SyncOptions): Promise<number> {
  const cap = opts.maxThreads ?? DEFAULT_MAX_THREADS;
  const growing = streamsOf(opts).some((s) => s.planAfterLoads === undefined);
  let n = 0;
  for (const { windows } of await planLateWindows(db, opts, opts.projects))
    n += growing ? Math.max(windows.length, cap) : windows.length;
  return n;
}

function rangeOf(plans: readonly ProjectPlan[]): { from: Day | null; to: Day | null } {
  const days = plans.flatMap((p) => p.windows.map((w) => w.day)).sort();
  const tos = plans.map((p) => p.to).sort();
  return { from: days[0] ?? null, to: tos.at(-1) ?? null };
}

async function dryRun(opts: SyncOptions, started: number, events?: CheckedEvents): Promise<SyncSummary> {
  const now = opts.now ?? Date.now;
  let state: StateRead;
  let eventsPlan: EventsPlan | undefined;
  const place = placeOrFile(opts);
  if (await place.exists()) {
    const db = await place.open('read');
    try {
      if (events !== undefined) eventsPlan = await planEvents(db, events, opts.refresh === true);
      state = await readState(db, opts, now());
      state.plans.push(...(await latePlans(db, opts)));
      state.range = rangeOf(state.plans);
      // A killed run's unrecorded requests count against the budget the real run will meet.
      const lost = await db.lostRequests({ now: now(), ...scopeOf(opts) });
      state.ledger.push(...lost.map((r) => r.at + r.durationMs));
    } finally {
      await db.close();
    }
  } else {
    const empty = { loadedDays: [], partialDays: [], deferredDays: [] };
    const plans = opts.projects.flatMap((p) =>
      streamsOf(opts).map((s) => planStream(s, p, empty, planOptions(opts, now()))),
    );
    state = { plans, ledger: [], pagesPerWindow: new Map(), pagesOfWindow: new Map(), range: rangeOf(plans) };
    if (events !== undefined) eventsPlan = await planEvents(undefined, events, opts.refresh === true);
  }
  const windows = mergePlans(
    state.plans,
    STREAMS.map((s) => s.name),
  );
  let fromHistory = true;
  const byStream = new Map<string, { windows: number; estimatedRequests: number; fromHistory: boolean }>();
  for (const w of windows) {
    const own = state.pagesOfWindow.get(windowKey(w));
    const avg = own ?? state.pagesPerWindow.get(admissionKey(w.projectId, w.stream));
    // The expected cost, not a floor: a stream with no history yet costs what a busy site's does.
    const n = avg !== undefined ? Math.max(1, Math.round(avg)) : typicalPages(w.stream);
    if (avg === undefined) fromHistory = false;
    const s = byStream.get(w.stream) ?? { windows: 0, estimatedRequests: 0, fromHistory: true };
    byStream.set(w.stream, {
      windows: s.windows + 1,
      estimatedRequests: s.estimatedRequests + n,
      fromHistory: s.fromHistory && avg !== undefined,
    });
  }
  let requests = 0;
  for (const [name, s] of byStream) {
    const whole = Math.ceil(s.estimatedRequests);
    byStream.set(name, { ...s, estimatedRequests: whole });
    requests += whole;
  }
  const budget = new RunBudget(opts.rateLimit, {}, { spent: state.ledger, now });
  const spent = budget.spentInWindow();
  const est = estimateRun(requests, opts.rateLimit, spent);
  return {
    ...emptySummary(opts, 'dry-run', started, now()),
    ...(eventsPlan !== undefined ? { eventsPlan } : {}),
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
    db: placeOrFile(opts).label,
    projects: [...opts.projects],
    streams: streamNames(opts),
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
