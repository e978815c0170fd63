import { MintlifyClient, type RequestEvent } from '../api/client.js';
import type { ApiKey } from '../api/key.js';
import {
  AuthError,
  DiskFullError,
  EtlError,
  EXIT,
  HttpStatusError,
  RateLimitError,
  StuckCursorError,
  UnreachableError,
  UsageError,
} from '../errors.js';
import {
  mergePlans,
  windowKey,
  type PlannedWindow,
  type ProjectPlan,
  type WindowItem,
} from '../extract/plan.js';
import { addDays, type Day } from '../util/day.js';
import type { QualityKind } from '../extract/quality.js';
import type { Destination, Place } from '../load/destination.js';
import { placeOrFile } from '../load/places.js';
import type { RunRequestLedger } from '../load/destination.js';
import { finishRun, type LedgerRow } from '../load/runs.js';
import { formatDuration } from '../util/duration.js';
import { destinationDown, unchanged } from './destination-down.js';
import { untrusted } from '../util/safe-text.js';
import type { Logger } from '../util/log.js';
import { admissionKey, DayAdmission, type Flight } from './admission.js';
import { HangWatch } from './hang-watch.js';
import { remainingEta } from './eta.js';
import { explainNotFound } from './not-found.js';
import { RunBudget, stopReasonOf, type StopReason } from './limits.js';
import { ProjectGate } from './project-gate.js';
import { refusedLine, ServiceRefusal, waitAdvice } from './service-refusal.js';
import { clockAheadLine, ServiceDay } from './service-day.js';
import { todayUtc } from '../util/day.js';
import { STUCK_WINDOWS_TO_STOP, StuckStreams } from './stuck-streams.js';
import { noProgress, type ProgressSink, type ProgressState } from './progress.js';
import { planLateWindows } from './late-windows.js';
import { streamsOf, type SyncOptions } from './sync-options.js';
import type { SyncStatus, SyncSummary, WindowFailure } from './sync-summary.js';
import { WindowWriter } from './writer.js';
import { STREAMS, streamByName, type StreamFetched } from '../streams/index.js';

/** A window as logs name it: `project day` for visitors, `project stream day` for the others. */
function label(w: {
  projectId: string;
  stream: string;
  day: string;
  dateTo?: string;
  item?: WindowItem;
}): string {
  if (w.item !== undefined) return `${w.projectId} ${w.stream} ${untrusted(w.item.id)}`;
  if (w.stream === 'visitors') return `${w.projectId} ${w.day}`;
  const days = w.dateTo !== undefined && w.dateTo !== addDays(w.day, 1) ? `[${w.day}, ${w.dateTo})` : w.day;
  return `${w.projectId} ${w.stream} ${days}`;
}

/** Fetched page rows that may wait for the writer before fetchers pause (a few MB of memory). */
const MAX_PENDING_ROWS = 60_000;

/** What the run read from the database before it starts: the plans, the ledger, pages per window. */
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
 * One sync run after planning: every planned window goes through `#window` (gate, admission,
 * fetch, hand-off to the writer), failures through `#onFetchError` (the stop rules), and the
 * run ends in `#record` (the run row) and `#summary`. The run's own abort signal stops the
 * requests in flight when --max-duration is reached or the API cannot be reached at all, so
 * every bound is a hard one.
 */
export class SyncRun {
  readonly #opts: SyncOptions;
  readonly #runId: string;
  readonly #state: StateRead;
  readonly #started: number;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #progress: ProgressSink;
  readonly #windows: PlannedWindow[];
  readonly #order: Map<PlannedWindow, number>;
  /** Where requests are recorded as they happen (opened when the run starts). */
  #requests: RunRequestLedger | undefined;
  readonly #place: Place;
  readonly #budget: RunBudget;
  readonly #client: MintlifyClient;
  readonly #writer: WindowWriter;
  readonly #admission: DayAdmission;
  readonly #gate = new ProjectGate();
  readonly #stuck = new StuckStreams();
  readonly #hang = new HangWatch();
  /** Set when the server accepted connections but stopped answering (see HangWatch). */
  #unresponsive: RequestEvent | undefined;
  /** Aborted by the run itself (deadline, unreachable API, a wrong URL); the user's signal joins it. */
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  readonly #spentBefore: number;

  readonly #ledger: LedgerRow[] = [];
  #seq = 0;
  readonly #p: ProgressState;
  #retries = 0;
  #loaded = 0;
  #rows = 0;
  #warnings = 0;
  readonly #byKind: Partial<Record<QualityKind, number>> = {};
  readonly #failures: WindowFailure[] = [];
  readonly #deferred: PlannedWindow[] = [];
  readonly #unknownProjects = new Map<string, string>();
  #dropped = 0;
  #stopReason: StopReason | null = null;
  readonly #refusal = new ServiceRefusal();
  readonly #serviceDay: ServiceDay;
  #fatal: EtlError | undefined;
  /**
   * The first write the destination could not take at all (its disk is full, its server ended the
   * connection): the run stops there.
   */
  #down: EtlError | undefined;
  #unreachable: UnreachableError | undefined;
  readonly #pendingLoads = new Set<Promise<void>>();
  #pendingRows = 0;
  /** Windows not started yet, for the ETA's count of requests left. */
  readonly #notStarted: Set<PlannedWindow>;
  #requestMs = 0;

  constructor(opts: SyncOptions, runId: string, state: StateRead, started: number) {
    this.#opts = opts;
    this.#runId = runId;
    this.#state = state;
    this.#started = started;
    this.#now = opts.now ?? Date.now;
    this.#log = opts.logger;
    this.#progress = opts.progress ?? noProgress;
    this.#windows = mergePlans(
      state.plans,
      STREAMS.map((s) => s.name),
    );
    this.#order = new Map(this.#windows.map((w, i) => [w, i]));
    this.#signal = opts.signal ? AbortSignal.any([opts.signal, this.#stop.signal]) : this.#stop.signal;
    if (opts.lockLost?.aborted === true) this.#halt('lock-lost');
    opts.lockLost?.addEventListener('abort', () => this.#halt('lock-lost'), { once: true });
    this.#notStarted = new Set(this.#windows);
    this.#serviceDay = new ServiceDay(todayUtc(this.#now()), opts.includeToday);
    this.#p = {
      windowsTotal: this.#windows.length + (state.lateEstimate ?? 0),
      windowsDone: 0,
      requests: 0,
      rows: 0,
      waitingUntil: undefined,
    };
    this.#place = placeOrFile(opts);
    const limits = { maxRequests: opts.maxRequests, deadline: this.#deadline() };
    this.#budget = new RunBudget(opts.rateLimit, limits, {
      spent: state.ledger,
      now: this.#now,
      onGrant: (at) => this.#requests?.granted(at),
      onRefund: (at) => this.#requests?.refunded(at),
    });
    this.#spentBefore = this.#budget.spentInWindow();
    this.#client = this.#makeClient();
    this.#writer = new WindowWriter(this.#place, {
      drainLedger: () => this.#ledger.splice(0),
      runProgress: (committed) => ({
        runId,
        windowsLoaded: committed.windows,
        rowsLoaded: committed.rows,
        windowsFailed: this.#failures.length,
        requests: this.#p.requests,
        retries: this.#retries,
        warnings: this.#warnings,
      }),
      ...(opts.idleCloseMs !== undefined ? { idleCloseMs: opts.idleCloseMs } : {}),
      ...(opts.writerMaxMemoryBytes !== undefined ? { maxMemoryBytes: opts.writerMaxMemoryBytes } : {}),
    });
    this.#admission = new DayAdmission({
      budget: this.#budget,
      limits,
      maxWaitMs: opts.maxWaitMs,
      now: this.#now,
      history: state.pagesPerWindow,
    });
  }

  async execute(): Promise<SyncSummary> {
    const requests = await this.#place.requestLedger({
      runId: this.#runId,
      budgetScope: this.#opts.budgetScope,
    });
    this.#requests = requests;
    try {
      return await this.#execute(requests);
    } finally {
      await requests.close();
    }
  }

  async #execute(requests: RunRequestLedger): Promise<SyncSummary> {
    this.#progress.start(this.#p);
    // The budget does not announce its waits; sampling it keeps the bar's "waiting" honest.
    const ticker = setInterval(() => {
      const wait = this.#budget.waitTimeMs();
      this.#p.waitingUntil = wait > 0 ? this.#now() + wait : undefined;
      this.#p.etaMs = this.#eta();
      this.#progress.update(this.#p);
    }, 1_000);
    ticker.unref();
    const deadline = this.#deadline();
    const hardStop =
      deadline === undefined
        ? undefined
        : setTimeout(() => this.#halt('max-duration'), Math.max(0, deadline - this.#now()));
    let ended = false;
    let recorded: boolean;
    try {
      await runPool(this.#windows, Math.max(1, this.#opts.concurrency), (w) => this.#window(w));
      await Promise.all(this.#pendingLoads);
      await this.#lateWindows().catch((e: unknown) => this.#lateFailed(e));
      ended = true;
    } finally {
      clearInterval(ticker);
      clearTimeout(hardStop);
      // The bar's last state is the summary's counts, every load committed.
      this.#progress.update(this.#p);
      this.#progress.stop();
      await this.#client.close();
      // A run that threw leaves its record open, for the next run to close as ended unfinished.
      recorded = await this.#closeWriter(ended);
    }
    if (!recorded) await this.#record();
    // Every request is in the database now (the writer drained the ledger when it closed), unless
    // the disk refused it: then the journal stays for the next run to recover.
    if (this.#down === undefined) await requests.finish();
    if (this.#fatal) throw this.#fatal;
    const behind = this.#serviceDay.behindBy;
    if (behind !== undefined)
      this.#log.warn(clockAheadLine(behind.service, behind.local, this.#serviceDay.left));
    this.#blameRefusal();
    const saidInError = ['unreachable', 'unresponsive', 'disk-full', 'destination-ended'];
    if (this.#stopReason === 'rate-limited' && this.#refusal.seen) {
      const unit = streamsOf(this.#opts).length === 1 ? 'day(s)' : 'window(s)';
      this.#log.info(refusedLine(this.#deferred.length, unit, this.#advice()));
    } else if (this.#stopReason && !saidInError.includes(this.#stopReason)) {
      this.#log.info(
        `stopped early (${this.#stopReason}): ${this.#deferred.length} ${streamsOf(this.#opts).length === 1 ? 'day(s)' : 'window(s)'} deferred; the next run picks them up without flags`,
      );
    }
    return this.#summary();
  }

  /**
   * A bound (--max-duration, --max-wait) that stopped the run while the service's 429 held the
   * budget was not the user's bound running out: the service refused, and the run says that.
   */
  #blameRefusal(): void {
    const r = this.#stopReason;
    if (!this.#refusal.seen || (r !== 'max-duration' && r !== 'max-wait')) return;
    if (this.#budget.waitTimeMs() > 0) this.#stopReason = 'rate-limited';
  }

  #advice(): string {
    return waitAdvice(this.#refusal.waitMs(this.#now()), this.#opts.rateLimit.windowMs);
  }

  /**
   * The windows of streams planned from what this run loaded (assistant threads from the turns):
   * planned once every earlier window is committed, then fetched like the others.
   */
  async #lateWindows(): Promise<void> {
    const late = streamsOf(this.#opts).filter((s) => s.planAfterLoads !== undefined);
    if (late.length === 0 || this.#stopping()) return;
    const projects = this.#opts.projects.filter((p) => !this.#unknownProjects.has(p));
    const planned = await this.#writer.read((db) => planLateWindows(db, this.#opts, projects));
    const windows = planned.flatMap((p) => p.windows);
    if (windows.length === 0) {
      if (!streamsOf(this.#opts).some((s) => s.name === 'assistant'))
        this.#log.info(
          'assistant_threads fetches the threads of assistant turns already loaded, and none is waiting: add assistant to --streams to load turns',
        );
      return;
    }
    for (const w of windows) {
      this.#order.set(w, this.#windows.length);
      this.#windows.push(w);
      this.#notStarted.add(w);
    }
    this.#p.windowsTotal = this.#windows.length;
    this.#progress.update(this.#p);
    await runPool(windows, Math.max(1, this.#opts.concurrency), (w) => this.#window(w));
    await Promise.all(this.#pendingLoads);
  }

  /** Planning the late streams failed (the file could not be read): their windows wait, the run is recorded. */
  #lateFailed(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    for (const s of streamsOf(this.#opts).filter((x) => x.planAfterLoads !== undefined)) {
      for (const projectId of this.#opts.projects)
        this.#failures.push({
          projectId,
          stream: s.name,
          day: '',
          code: 'E_PLAN',
          message: `planning failed: ${message}`,
        });
    }
    this.#log.error(`could not plan the streams that follow the loads: ${message}`);
  }

  #deadline(): number | undefined {
    const max = this.#opts.maxDurationMs;
    return max !== undefined ? this.#started + max : undefined;
  }

  #makeClient(): MintlifyClient {
    const opts = this.#opts;
    return new MintlifyClient({
      baseUrl: opts.apiUrl,
      apiKey: opts.apiKey as ApiKey,
      budget: this.#budget,
      maxWaitMs: opts.maxWaitMs,
      now: this.#now,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
      ...(opts.timeouts !== undefined ? { timeouts: opts.timeouts } : {}),
      onRequest: (e) => {
        // A request that never reached the server spent nothing: no ledger row, no count.
        if (!e.reached) return;
        if (e.status === 429) this.#refusal.refused();
        if (e.serverDate !== undefined) this.#serviceDay.observe(e.serverDate);
        if (this.#hang.observe(e) && this.#unresponsive === undefined) {
          this.#unresponsive = e;
          this.#halt('unresponsive');
        }
        this.#p.requests++;
        this.#requestMs += e.durationMs;
        const row: LedgerRow = {
          at: e.at,
          seq: this.#seq++,
          endpoint: e.endpoint,
          projectId: e.projectId,
          status: e.status,
          durationMs: Math.round(e.durationMs),
          runId: this.#runId,
          budgetScope: this.#opts.budgetScope ?? null,
        };
        if (this.#requests?.answered(row) !== true) this.#ledger.push(row);
        this.#p.etaMs = this.#eta();
        this.#progress.update(this.#p);
      },
      onRetry: (e) => {
        this.#retries++;
        if (
          e.error instanceof HttpStatusError &&
          e.error.status === 429 &&
          e.error.retryAfterMs !== undefined
        )
          this.#refusal.retryAfter(this.#now() + e.error.retryAfterMs);
        this.#log.debug(
          `retry ${e.attempt} of ${e.endpoint} in ${formatDuration(e.delayMs)}: ${e.error.message}`,
        );
      },
    });
  }

  /** Stops the run from inside: no window starts, and the requests in flight are aborted. */
  #halt(reason: StopReason): void {
    this.#stopReason ??= reason;
    this.#stop.abort(new Error(`sync stopped: ${reason}`));
  }

  #stopping(): boolean {
    if (this.#opts.signal?.aborted) this.#stopReason ??= 'interrupted';
    return this.#fatal !== undefined || this.#stopReason !== null;
  }

  /**
   * The budget-aware estimate of the time left: the pages the windows not started are expected to
   * take and those the windows in flight still need, sent at the budget's pace (--dry-run's
   * estimate) and at the latency seen so far, shared by the windows fetched in parallel.
   */
  #eta(): number | undefined {
    if (this.#p.requests === 0) return undefined;
    let left = this.#admission.stillNeeded();
    for (const w of this.#notStarted)
      left += this.#admission.expectedPages(admissionKey(w.projectId, w.stream));
    const perRequestMs = this.#requestMs / this.#p.requests / Math.max(1, this.#opts.concurrency);
    return remainingEta(left, this.#budget, this.#now(), perRequestMs);
  }

  /** The window's turn: its flight, or undefined when it was deferred or dropped instead. */
  async #admit(w: PlannedWindow, key: string): Promise<Flight | undefined> {
    if (this.#stopping()) return void this.#deferred.push(w);
    if (!(await this.#gate.enter(w.projectId))) return void this.#dropped++;
    if (this.#stopping()) return void this.#deferred.push(w);
    if (this.#stuck.stopped(key)) {
      this.#gate.open(w.projectId);
      return void this.#deferred.push(w);
    }
    const admitted = await this.#admission.admit(key, () => this.#stopping());
    if (admitted === undefined || 'refused' in admitted) {
      if (admitted) this.#stopReason ??= admitted.refused;
      this.#gate.open(w.projectId);
      return void this.#deferred.push(w);
    }
    return admitted;
  }

  /** One window from plan to hand-off: gate, admission, fetch, load; or deferred, dropped, failed. */
  async #window(planned: PlannedWindow): Promise<void> {
    const key = admissionKey(planned.projectId, planned.stream);
    // After the service's date (this machine's clock is ahead): never fetched (see ServiceDay).
    if (this.#serviceDay.admit(planned) === undefined) return this.#leftOut(planned);
    const admitted = await this.#admit(planned, key);
    // Admitted, its pages count in the admission's flights; otherwise it is never fetched.
    this.#notStarted.delete(planned);
    if (admitted === undefined) return;
    let fetchedPages: number | undefined;
    try {
      // The service's date may have arrived while the window waited for its turn.
      const w = this.#serviceDay.admit(planned);
      if (w === undefined) return;
      // A window's data is as old as its first page: judged settled or partial by that instant, a
      // window whose pages ran past midnight (or waited for the budget) is never called final early.
      const startedAt = new Date(this.#now());
      const fetched = await this.#fetch(w, admitted, planned);
      fetchedPages = fetched.pagesFetched;
      this.#stuck.ended(key, false);
      // The first answer of the run (this window's) may say its days have not come yet.
      if (this.#serviceDay.admit(w) === undefined) return;
      await this.#handOff(w, fetched, startedAt);
    } catch (e) {
      await this.#onFetchError(planned, e);
    } finally {
      // Whatever the probe's outcome, windows waiting behind it go on (a 404 closed the gate first).
      this.#gate.open(planned.projectId);
      this.#admission.finish(admitted, key, fetchedPages);
      this.#p.windowsDone++;
      this.#progress.update(this.#p);
    }
  }

  /** A window after the service's date: neither fetched nor deferred (the next plan never has it). */
  #leftOut(w: PlannedWindow): void {
    this.#notStarted.delete(w);
    this.#p.windowsDone++;
    this.#progress.update(this.#p);
  }

  /** A window's pages, checked for consistency; data-quality findings are counted and logged once per kind. */
  async #fetch(w: PlannedWindow, flight: Flight, planned: PlannedWindow = w): Promise<StreamFetched> {
    const cap = this.#opts.maxPages?.get(w.stream);
    const fetched = await streamByName(w.stream).fetch(this.#client, w, {
      signal: this.#signal,
      periodPages: this.#opts.periodPages === true,
      // The oldest day in flight gets the next request when the budget is short.
      priority: this.#order.get(planned) ?? 0,
      ...(cap !== undefined ? { maxPages: cap } : {}),
      onPage: () => {
        flight.pages++;
        this.#gate.open(w.projectId);
      },
    });
    for (const note of fetched.notes) this.#log.info(`${label(w)}: ${note}`);
    for (const q of fetched.warnings) {
      this.#warnings++;
      this.#byKind[q.kind] = (this.#byKind[q.kind] ?? 0) + 1;
      // An out-of-range time was not loaded as sent: its detail says what was done instead.
      const how = q.kind === 'time_out_of_range' ? '' : ', loaded as the API sent it';
      this.#log.warnOnce(
        q.kind,
        `data quality (${q.kind})${how}: ${label(w)} ${q.detail} (further cases are counted in the run record)`,
      );
    }
    return fetched;
  }

  /**
   * Hands a fetched window to the writer without waiting for its commit: the worker fetches its
   * next day meanwhile (waiting here left every worker idle for a transaction per day). Windows
   * waiting for a commit are capped in rows, so memory stays bounded, never by the range.
   */
  async #handOff(w: PlannedWindow, fetched: StreamFetched, fetchedAt: Date): Promise<void> {
    const n = fetched.rows;
    this.#pendingRows += n;
    const load = this.#writer
      .loadPrepared(() => fetched.prepare({ runId: this.#runId, fetchedAt }))
      .then(
        () => {
          this.#loaded++;
          this.#rows += n;
          this.#p.rows = this.#rows;
          // Rows count as their load commits, after the window's fetch was shown: say so now.
          this.#progress.update(this.#p);
        },
        async (e: unknown) => {
          const down = destinationDown(e, this.#place.label);
          if (down !== undefined) return this.#onDestinationDown(w, down);
          const message = e instanceof Error ? e.message : String(e);
          const code = e instanceof EtlError ? e.code : 'E_LOAD';
          this.#failures.push({
            projectId: w.projectId,
            stream: w.stream,
            day: w.day,
            code,
            message: `load failed: ${message}`,
          });
          this.#log.error(`${label(w)}: load failed, ${unchanged(w)}: ${message}`);
          // Recorded like a fetch that failed: status and the next plan see a failed window.
          await this.#recordFailed(w, code, `load failed: ${message}`);
        },
      );
    this.#pendingLoads.add(load);
    void load.finally(() => {
      this.#pendingLoads.delete(load);
      this.#pendingRows -= n;
    });
    while (this.#pendingRows > MAX_PENDING_ROWS && this.#pendingLoads.size > 0)
      await Promise.race(this.#pendingLoads);
  }

  /**
   * The stop rules. A window that could not be fetched is deferred when the run is stopping (a
   * signal, a bound, the budget, an API that cannot be reached: the next run picks it up), dropped
   * when its project does not exist, and failed (retried by the next run) otherwise.
   */
  async #onFetchError(w: PlannedWindow, e: unknown): Promise<void> {
    if (this.#signal.aborted) {
      // Whatever the aborted request threw, the day was not fetched: it waits for the next run.
      this.#stopReason ??= 'interrupted';
      this.#deferred.push(w);
    } else if (e instanceof AuthError) {
      this.#fatal ??= e;
      this.#deferred.push(w);
    } else if (e instanceof RateLimitError) {
      this.#stopReason ??= stopReasonOf(e);
      this.#deferred.push(w);
    } else if (e instanceof HttpStatusError && e.status === 429) {
      // Still refused after every retry: the server's budget is spent; more requests now
      // would only be refused too, so the rest waits for the next run.
      this.#stopReason ??= 'rate-limited';
      this.#deferred.push(w);
    } else if (e instanceof UnreachableError) {
      this.#unreachable ??= e;
      this.#deferred.push(w);
      this.#halt('unreachable');
    } else if (e instanceof HttpStatusError && e.status === 404 && e.request.path.includes('/analytics/')) {
      this.#notFound(w, e);
    } else {
      const down = destinationDown(e, this.#place.label);
      if (down !== undefined) this.#onDestinationDown(w, down);
      else await this.#fail(w, e);
    }
  }

  /**
   * A full disk or a server that ended the connection is the destination's state, not the
   * window's: every later write would fail the same way, so the run stops, the window waits for
   * the next run, and one line says why at the end (not one per window).
   */
  #onDestinationDown(w: PlannedWindow, down: EtlError): void {
    this.#down ??= down;
    this.#deferred.push(w);
    this.#halt(down instanceof DiskFullError ? 'disk-full' : 'destination-ended');
  }

  /**
   * A 404 that names the project means a wrong project id: its windows are dropped, the other
   * projects still load, and the run exits 2. A 404 that does not (a router's "no route", an HTML
   * page) means the URL is wrong for every project: the run stops at once.
   */
  #notFound(w: PlannedWindow, e: HttpStatusError): void {
    const { kind, message } = explainNotFound(this.#opts.apiUrl, w.projectId, e);
    if (kind === 'url') {
      this.#fatal ??= new UsageError(
        message,
        { apiUrl: this.#opts.apiUrl, path: e.request.path },
        { cause: e },
      );
      this.#deferred.push(w);
      this.#stop.abort(this.#fatal);
      return;
    }
    // The summary line says it too: a run of this project alone says it once; with other projects
    // still loading, the summary may be far off, so it is said now as well.
    if (!this.#unknownProjects.has(w.projectId) && this.#opts.projects.length > 1) this.#log.error(message);
    this.#unknownProjects.set(w.projectId, message);
    this.#gate.close(w.projectId);
    this.#dropped++;
  }

  async #fail(w: PlannedWindow, e: unknown): Promise<void> {
    const err = e instanceof Error ? e : new Error(String(e));
    const code = e instanceof EtlError ? e.code : 'E_INTERNAL';
    this.#failures.push({ projectId: w.projectId, stream: w.stream, day: w.day, code, message: err.message });
    this.#log.error(err.message.startsWith(label(w)) ? err.message : `${label(w)}: ${err.message}`);
    if (this.#stuck.ended(admissionKey(w.projectId, w.stream), e instanceof StuckCursorError))
      this.#log.error(
        `${w.projectId} ${w.stream}: the cursor did not advance on ${STUCK_WINDOWS_TO_STOP} windows in a row; its other windows wait for the next run`,
      );
    await this.#recordFailed(w, code, err.message);
  }

  /** The failed window in sync_windows, or an item's failure in its stream's own table. */
  async #recordFailed(w: PlannedWindow, code: string, message: string): Promise<void> {
    if (w.item !== undefined) {
      // An item has no sync_windows row: its stream records the failure in its own table.
      const record = streamByName(w.stream).recordItemFailure;
      const at = new Date(this.#now());
      if (record !== undefined)
        await this.#writer
          .read((db) => record(db, w, at, this.#runId))
          .catch((recErr: unknown) => {
            this.#log.debug(`could not record the failed ${w.stream} item: ${String(recErr)}`);
          });
      return;
    }
    try {
      await this.#writer.recordFailure({
        projectId: w.projectId,
        stream: w.stream,
        day: w.day,
        dateTo: w.dateTo,
        runId: this.#runId,
        error: `${code}: ${message}`,
        attempts: 1,
        fetchedAt: new Date(this.#now()),
      });
    } catch (recErr) {
      this.#log.debug(`could not record the failed window: ${String(recErr)}`);
    }
  }

  #status(): Exclude<SyncStatus, 'dry-run'> {
    if (this.#fatal) return 'failed';
    if (this.#deferred.length > 0 || this.#failures.length > 0 || this.#unknownProjects.size > 0)
      return 'incomplete';
    return 'succeeded';
  }

  #error(): string | null {
    if (this.#fatal) return this.#fatal.message;
    const parts: string[] = [...this.#unknownProjects.values()];
    if (this.#unreachable) {
      const u = this.#unreachable;
      parts.push(
        `the API at ${u.baseUrl} cannot be reached (${u.shortReason}): no request reached it, so none was spent of the budget; ${this.#deferred.length} day(s) deferred to the next run. Check --api-url / MINTLIFY_API_URL and this machine's network`,
      );
    }
    if (this.#unresponsive) parts.push(this.#unresponsiveMessage(this.#unresponsive));
    if (this.#stopReason === 'lock-lost')
      parts.push(
        `the run's lock on ${this.#place.label} was lost (its connection broke): it stopped so as not to load beside another run of these projects; ${this.#deferred.length} window(s) deferred to the next run`,
      );
    if (this.#down !== undefined)
      parts.push(`${this.#down.message}; ${this.#deferred.length} window(s) deferred to the next run`);
    if (this.#failures.length > 0) parts.push(`${this.#failures.length} window(s) failed after retries`);
    return parts.length > 0 ? parts.join('; ') : null;
  }

  #unresponsiveMessage(e: RequestEvent): string {
    const waited = e.errorCode === 'UND_ERR_HEADERS_TIMEOUT' ? 'no response headers' : 'no response';
    return `the API at ${this.#opts.apiUrl} accepts connections but does not answer (${waited} within ${formatDuration(e.durationMs)}, ${this.#hang.silentInARow} requests in a row): the run stopped instead of waiting out every retry; ${this.#deferred.length} window(s) deferred to the next run`;
  }

  #exitCode(): number {
    if (this.#stopReason === 'interrupted') return EXIT.interrupted;
    if (this.#stopReason === 'lock-lost') return EXIT.dbInUse;
    if (this.#down !== undefined) return this.#down.exitCode;
    if (this.#unknownProjects.size > 0) return EXIT.usage;
    if (this.#unreachable || this.#unresponsive || this.#failures.length > 0) return EXIT.windowsFailed;
    return EXIT.ok;
  }

  #deferredDays(): string[] {
    return this.#deferred.map(windowKey).sort();
  }

  /**
   * The writer's last commit (the request ledger), then the run's record through the file it
   * holds (`withRecord`): a DuckDB file opened and checkpointed once more for one row cost every
   * run about 100 ms. True when the record was written. A destination that is down refuses both.
   */
  async #closeWriter(withRecord: boolean): Promise<boolean> {
    try {
      await this.#writer.close(withRecord ? (dest) => this.#finishRun(dest) : undefined);
      return withRecord;
    } catch (e) {
      this.#downOrThrow(e);
      return false;
    }
  }

  async #record(): Promise<void> {
    try {
      await this.#writeRunRecord();
    } catch (e) {
      // The run's own record is one more write it refuses: the summary still says what happened,
      // and the next run closes the record this one left open.
      this.#downOrThrow(e);
    }
  }

  #downOrThrow(e: unknown): void {
    const down = destinationDown(e, this.#place.label);
    if (down === undefined) throw e;
    this.#down ??= down;
    this.#stopReason ??= down instanceof DiskFullError ? 'disk-full' : 'destination-ended';
  }

  async #writeRunRecord(): Promise<void> {
    const dest = await this.#place.open('write');
    try {
      await this.#finishRun(dest);
    } finally {
      await dest.close();
    }
  }

  async #finishRun(dest: Destination): Promise<void> {
    await finishRun(dest.session, {
      runId: this.#runId,
      status: this.#status(),
      windowsLoaded: this.#loaded,
      windowsFailed: this.#failures.length,
      windowsDeferred: this.#deferred.length,
      requests: this.#p.requests,
      retries: this.#retries,
      rowsLoaded: this.#rows,
      warnings: this.#warnings,
      error: this.#error(),
      // Failed days go in too: a failure that could not be recorded in sync_windows (the
      // database refused the load) must still reach the next run's plan.
      deferredDays: [...new Set([...this.#deferredDays(), ...this.#failures.map(windowKey)])].sort(),
      finishedAt: new Date(this.#now()),
      unknownProjects: [...this.#unknownProjects.keys()],
    });
  }

  #summary(): SyncSummary {
    const range = this.#state.range;
    return {
      runId: this.#runId,
      status: this.#status(),
      exitCode: this.#exitCode(),
      db: this.#place.label,
      projects: [...this.#opts.projects],
      streams: streamsOf(this.#opts).map((s) => s.name),
      unknownProjects: [...this.#unknownProjects.keys()],
      dateFrom: range.from,
      dateTo: range.to,
      windows: {
        planned: this.#windows.length,
        loaded: this.#loaded,
        failed: this.#failures.length,
        deferred: this.#deferred.length,
        dropped: this.#dropped,
      },
      requests: this.#p.requests,
      retries: this.#retries,
      rows: this.#rows,
      warnings: { total: this.#warnings, byKind: this.#byKind },
      stopReason: this.#stopReason,
      ...(this.#serviceDay.behindBy !== undefined
        ? { clockAhead: { ...this.#serviceDay.behindBy, leftOut: this.#serviceDay.left } }
        : {}),
      ...(this.#unreachable !== undefined
        ? { unreachable: { apiUrl: this.#unreachable.baseUrl, reason: this.#unreachable.shortReason } }
        : {}),
      ...(this.#stopReason === 'rate-limited' && this.#refusal.seen
        ? { serviceRefused: { retryAfterMs: this.#refusal.waitMs(this.#now()), advice: this.#advice() } }
        : {}),
      budget: {
        rateLimit: this.#opts.rateLimit.text,
        spentBefore: this.#spentBefore,
        freesAt: freesAtIso(this.#budget),
      },
      durationMs: this.#now() - this.#started,
      failures: this.#failures,
      deferredDays: this.#deferredDays(),
      error: this.#error(),
    };
  }
}

export function freesAtIso(budget: RunBudget): string | null {
  return budget.spentInWindow() > 0 ? new Date(budget.freesAt()).toISOString() : null;
}

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
