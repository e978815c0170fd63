import { unmappedSubdomains, type UnmappedSubdomain } from '../load/event-unmapped.js';
import { RequestBudget } from '../api/budget.js';
import type { Destination } from '../load/destination.js';
import { eventsByRun, type RunEvents } from '../load/event-objects.js';
import { projectObjectFailures } from '../load/event-failures.js';
import type { Row, SqlParam, SqlSession } from '../load/session.js';
import { ANALYTICS_ENDPOINTS, STREAMS } from '../streams/index.js';
import {
  readDeferredDays,
  readLedgerSince,
  readRecentRuns,
  readSyncState,
  STALE_RUN_ERROR,
  type RunRecord,
  type SyncState,
} from '../load/runs.js';
import type { Day } from '../util/day.js';
import type { RateLimitSpec } from '../util/duration.js';

export interface RunSummary {
  readonly runId: string;
  readonly status: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  /** finished - started; for a run still going, the time so far. */
  readonly durationMs: number | null;
  readonly windows: { planned: number; loaded: number; failed: number; deferred: number };
  readonly requests: number;
  readonly retries: number;
  readonly rows: number;
  readonly warnings: number;
  readonly error: string | null;
  /** The event stream's objects the run loaded for the project, and the events they added (absent: none). */
  readonly events?: RunEvents;
}

export interface Coverage {
  readonly firstDay: Day;
  readonly lastDay: Day;
  readonly daysLoaded: number;
  readonly daysMissing: number;
  /** Days between the first and the last loaded day with no data, ascending. */
  readonly missingDays: Day[];
  readonly lastLoadedAt: string | null;
}

/** One stream of one project: what its loaded windows cover and which days are owed. */
export interface StreamStatus {
  readonly stream: string;
  /** null when the stream has failed or deferred days but no loaded one yet. */
  readonly coverage: Coverage | null;
  /** Loaded days that were not over when fetched (the next sync fetches them again). */
  readonly partialDays: Day[];
  /** Loaded days a --max-pages cap cut short (their data is incomplete). */
  readonly truncatedDays: Day[];
  /** Days whose last attempt failed and that hold no data. */
  readonly failedDays: Day[];
  /** Days a budget- or time-bounded run left for the next one, not loaded since. */
  readonly deferredDays: Day[];
}

export interface ProjectStatus {
  readonly projectId: string;
  /*
   * coverage, partialDays, failedDays and deferredDays are the visitors stream's, as they were
   * before there were streams: monitoring scripts read them (e.g. .projects[].coverage.daysMissing),
   * so they stay, whatever else `streams` lists.
   */
  /** The visitors stream's coverage; null when no visitors day is loaded yet. */
  readonly coverage: Coverage | null;
  /** The visitors stream's partial days. */
  readonly partialDays: Day[];
  /** The visitors stream's failed days. */
  readonly failedDays: Day[];
  /** The visitors stream's deferred days. */
  readonly deferredDays: Day[];
  /** Every stream with loaded, failed or deferred days: visitors first, then the others. */
  readonly streams: StreamStatus[];
  /** assistant_threads (recorded per thread, not in sync_windows); null when none was fetched. */
  readonly threads: ThreadStatus | null;
  /** The Enterprise event stream (sync --events); null when no object was loaded. */
  readonly events: EventStreamStatus | null;
  /** Most recent first. */
  readonly runs: RunSummary[];
}

export interface EventStreamStatus {
  readonly objects: number;
  readonly events: number;
  readonly rejectedLines: number;
  readonly firstDay: Day | null;
  readonly lastDay: Day | null;
  /** The newest object loaded (its key under the source) and when. */
  readonly newestKey: string | null;
  readonly lastLoadedAt: string | null;
  /** Objects whose read failed (retried by every sync) or that were skipped on purpose. */
  readonly failingObjects: readonly FailingObjectStatus[];
}

export interface FailingObjectStatus {
  /** The key under the source, as --events-skip and --events-read take it. */
  readonly key: string;
  readonly source: string;
  readonly status: 'failing' | 'skipped';
  readonly code: string;
  readonly cause: string;
  readonly attempts: number;
  readonly firstFailedAt: string;
  readonly lastFailedAt: string;
}

export interface ThreadStatus {
  /** Threads whose messages are loaded. */
  readonly fetched: number;
  /** Threads the service answered 404 for. */
  readonly gone: number;
  /** Threads of loaded turns never fetched, or that gained turns since: the next runs' work. */
  readonly waiting: number;
}

export interface BudgetStatus {
  readonly rateLimit: string;
  /** Whether `rateLimit` was given to status or is the service's default. */
  readonly limitSource: 'flag' | 'default';
  /**
   * More requests in the window than `limit`: runs with a larger --rate-limit spent them, so
   * `spent/limit` would describe a limit that did not apply to them.
   */
  readonly overLimit: boolean;
  readonly limit: number;
  readonly windowMs: number;
  /** Requests in the ledger that still count against the window now. */
  readonly spent: number;
  readonly remaining: number;
  /** When the next request may go (now when a slot is free). */
  readonly nextSlotAt: string;
  readonly nextSlotInMs: number;
  /** When the oldest request in the window ages out (null with an empty window). */
  readonly oldestFreesAt: string | null;
}

export interface StatusReport {
  readonly db: string;
  readonly now: string;
  readonly budget: BudgetStatus;
  readonly projects: ProjectStatus[];
  /**
   * Events of the event stream no --events-project mapping named, per source and subdomain (not
   * stored; a mapping that names the subdomain reads their objects again). Absent when none.
   */
  readonly unmappedEvents?: UnmappedSubdomain[];
}

export interface StatusOptions {
  readonly rateLimit: RateLimitSpec;
  /** Default 'flag'. */
  readonly limitSource?: 'flag' | 'default';
  readonly now?: number;
  /** Runs shown per project (default 5). */
  readonly runs?: number;
  /** Count only this budget scope's requests (and older rows without one); default every request. */
  readonly budgetScope?: string | undefined;
}

/** Runs looked at when picking each project's last few: plenty for any realistic history. */
const RUN_HISTORY = 500;

function withEvents(s: RunSummary, events: RunEvents | undefined): RunSummary {
  return events === undefined ? s : { ...s, events };
}

function summarizeRun(r: RunRecord, now: number): RunSummary {
  const started = Date.parse(r.startedAt);
  const end = r.finishedAt !== null ? Date.parse(r.finishedAt) : r.status === 'running' ? now : NaN;
  return {
    runId: r.runId,
    status: r.status,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    durationMs: Number.isFinite(end - started) ? Math.max(0, end - started) : null,
    windows: {
      planned: r.windowsPlanned,
      loaded: r.windowsLoaded,
      failed: r.windowsFailed,
      deferred: r.windowsDeferred,
    },
    requests: r.requests,
    retries: r.retries,
    rows: r.rowsLoaded,
    warnings: r.warnings,
    error: r.error,
  };
}

/**
 * The run-record reads of src/load/runs.ts that status needs, bound to one destination: what a
 * run left behind, the deferred days, the request ledger, the recent runs.
 */
export interface StatusRuns {
  syncState(projectId: string, stream: string): Promise<SyncState>;
  deferredDays(projectId: string, stream: string): Promise<Day[]>;
  /** Epoch ms of the analytics requests that still count at `sinceMs` (readLedgerSince). */
  /** Requests since then, of this budget scope (and rows without one), or of every scope. */
  ledgerSince(sinceMs: number, budgetScope?: string): Promise<number[]>;
  recentRuns(limit: number): Promise<RunRecord[]>;
}

/** What status reads a destination through. */
export interface StatusSource {
  readonly session: SqlSession;
  /** How the report names the destination (`db`): the DuckDB path, or a URL without its password. */
  readonly label: string;
  readonly runs: StatusRuns;
  /**
   * Whether a sync of these projects holds the destination now: a 'running' run without one was
   * killed. (A DuckDB file has one lock for every project; a schema has one per project.)
   */
  syncRunning(projectIds: readonly string[]): Promise<boolean>;
}

/** An open destination as status reads it. */
export function statusSourceOf(dest: Destination): StatusSource {
  return sessionStatusSource(dest.session, dest.label, (projects) => dest.syncRunning(projects));
}

/** Any destination as status reads it, given how to tell whether a sync holds it now. */
export function sessionStatusSource(
  session: SqlSession,
  label: string,
  syncRunning: (projectIds: readonly string[]) => Promise<boolean>,
): StatusSource {
  const db = session;
  return {
    session,
    label,
    syncRunning,
    runs: {
      syncState: (projectId, stream) => readSyncState(db, projectId, stream),
      deferredDays: (projectId, stream) => readDeferredDays(db, projectId, stream),
      ledgerSince: (sinceMs, budgetScope) =>
        readLedgerSince(db, sinceMs, {
          endpoints: ANALYTICS_ENDPOINTS,
          ...(budgetScope !== undefined ? { budgetScope } : {}),
        }),
      recentRuns: (limit) => readRecentRuns(db, limit),
    },
  };
}

function read(src: StatusSource, sql: string, params?: readonly SqlParam[]): Promise<Row[]> {
  return src.session.rows(sql, params);
}

async function projectIds(src: StatusSource): Promise<string[]> {
  const rows = await read(
    src,
    `SELECT p.project_id FROM (
       SELECT project_id FROM site_daily
       UNION ALL SELECT project_id FROM sync_windows
       UNION ALL SELECT unnest(project_ids) AS project_id FROM sync_runs
     ) AS p WHERE p.project_id IS NOT NULL
     GROUP BY p.project_id ORDER BY ${src.session.sql.codePoint('p.project_id')}`,
  );
  return rows.map((r) => String(r['project_id']));
}

interface StreamCoverage {
  readonly coverage: Coverage;
  readonly truncatedDays: Day[];
}

function dayList(value: unknown): Day[] {
  return ((value as unknown[] | null) ?? []).map(String);
}

/** v_coverage by project, then stream. */
async function coverageByStream(src: StatusSource): Promise<Map<string, Map<string, StreamCoverage>>> {
  const rows = await read(
    src,
    `SELECT project_id, stream, first_day, last_day, days_loaded, days_missing, missing_days,
       truncated_days, last_loaded_at FROM v_coverage`,
  );
  const out = new Map<string, Map<string, StreamCoverage>>();
  for (const r of rows) {
    const projectId = String(r['project_id']);
    const streams = out.get(projectId) ?? new Map<string, StreamCoverage>();
    out.set(projectId, streams);
    streams.set(String(r['stream']), {
      coverage: {
        firstDay: String(r['first_day']),
        lastDay: String(r['last_day']),
        daysLoaded: Number(r['days_loaded']),
        daysMissing: Number(r['days_missing']),
        missingDays: dayList(r['missing_days']),
        lastLoadedAt: typeof r['last_loaded_at'] === 'string' ? r['last_loaded_at'] : null,
      },
      truncatedDays: dayList(r['truncated_days']),
    });
  }
  return out;
}

/**
 * The streams a project has anything about: those with windows (loaded or failed), and those
 * named by the deferred days of unfinished runs ('project:day' is visitors',
 * 'project:stream:day' another stream's).
 */
async function projectStreams(src: StatusSource, projectId: string): Promise<string[]> {
  // An entry is 'project:YYYY-MM-DD' or 'project:stream:YYYY-MM-DD': the stream sits between the
  // project's colon and the day's (11 characters from the end).
  const rows = await read(
    src,
    `SELECT DISTINCT stream FROM sync_windows WHERE project_id = $1::VARCHAR
     UNION
     SELECT DISTINCT CASE WHEN length(e.entry) - length($1::VARCHAR) = 11 THEN 'visitors'
                          ELSE substr(e.entry, length($1::VARCHAR) + 2, length(e.entry) - length($1::VARCHAR) - 12)
                     END AS stream
     FROM sync_runs r, unnest(r.deferred_days) AS e(entry)
     WHERE r.status IN ('incomplete', 'failed') AND left(e.entry, length($1::VARCHAR) + 1) = $1::VARCHAR || ':'`,
    [projectId],
  );
  return sortStreams(rows.map((r) => String(r['stream'])).filter((s) => s !== ''));
}

/** Visitors first, then the registry's order, then streams this version does not know, by name. */
export function sortStreams(names: readonly string[]): string[] {
  const rank = (name: string): number => {
    const i = STREAMS.findIndex((s) => s.name === name);
    return name === 'visitors' ? -1 : i < 0 ? STREAMS.length : i;
  };
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

async function streamStatus(
  src: StatusSource,
  projectId: string,
  stream: string,
  covered: StreamCoverage | undefined,
): Promise<StreamStatus> {
  const state = await src.runs.syncState(projectId, stream);
  const failed = new Set(state.failedDays);
  return {
    stream,
    coverage: covered?.coverage ?? null,
    partialDays: state.partialDays,
    truncatedDays: covered?.truncatedDays ?? [],
    failedDays: state.failedDays,
    // A failed day is also left for the next run; it is listed once, as failed.
    deferredDays: (await src.runs.deferredDays(projectId, stream)).filter((d) => !failed.has(d)),
  };
}

/** A stream is shown when it has something to show: a loaded, failed or deferred day. */
function hasDays(s: StreamStatus): boolean {
  return s.coverage !== null || s.failedDays.length > 0 || s.deferredDays.length > 0;
}

async function projectStatus(
  src: StatusSource,
  projectId: string,
  covered: Map<string, StreamCoverage> | undefined,
  runs: RunSummary[],
): Promise<ProjectStatus> {
  const streams: StreamStatus[] = [];
  for (const stream of await projectStreams(src, projectId)) {
    const s = await streamStatus(src, projectId, stream, covered?.get(stream));
    if (hasDays(s)) streams.push(s);
  }
  const visitors = streams.find((s) => s.stream === 'visitors');
  const threads = await threadStatus(src, projectId);
  const events = await eventStreamStatus(src, projectId);
  return {
    projectId,
    coverage: visitors?.coverage ?? null,
    partialDays: visitors?.partialDays ?? [],
    failedDays: visitors?.failedDays ?? [],
    deferredDays: visitors?.deferredDays ?? [],
    streams,
    threads,
    events,
    runs,
  };
}

async function eventStreamStatus(src: StatusSource, projectId: string): Promise<EventStreamStatus | null> {
  const [o] = await read(
    src,
    `SELECT count(*) AS objects, coalesce(sum(rejected), 0) AS rejected, max(object_key COLLATE "C") AS newest,
       max(loaded_at) AS last_loaded_at FROM event_objects WHERE project_id = $1::VARCHAR`,
    [projectId],
  );
  const objects = Number(o?.['objects'] ?? 0);
  const failing = await failingObjects(src, projectId);
  if (objects === 0 && failing.length === 0) return null;
  const [e] = await read(
    src,
    'SELECT count(*) AS n, min(day) AS first_day, max(day) AS last_day FROM analytics_events WHERE project_id = $1::VARCHAR',
    [projectId],
  );
  return {
    objects,
    events: Number(e?.['n'] ?? 0),
    rejectedLines: Number(o?.['rejected'] ?? 0),
    firstDay: (e?.['first_day'] as Day | null) ?? null,
    lastDay: (e?.['last_day'] as Day | null) ?? null,
    newestKey: (o?.['newest'] as string | null) ?? null,
    lastLoadedAt: (o?.['last_loaded_at'] as string | null) ?? null,
    failingObjects: failing,
  };
}

async function failingObjects(src: StatusSource, projectId: string): Promise<FailingObjectStatus[]> {
  const rows = await projectObjectFailures(src.session, projectId);
  return rows.map((r) => ({
    key: r.key,
    source: r.source,
    status: r.status,
    code: r.code,
    cause: r.cause,
    attempts: r.attempts,
    firstFailedAt: r.firstFailedAt,
    lastFailedAt: r.lastFailedAt,
  }));
}

async function threadStatus(src: StatusSource, projectId: string): Promise<ThreadStatus | null> {
  const [r] = await read(
    src,
    `SELECT
       (SELECT count(*) FROM assistant_threads WHERE project_id = $1::VARCHAR AND status = 'loaded') AS fetched,
       (SELECT count(*) FROM assistant_threads WHERE project_id = $1::VARCHAR AND status = 'gone') AS gone,
       (SELECT count(*) FROM (SELECT thread_id, count(*) AS turns FROM assistant_turns
                              WHERE project_id = $1::VARCHAR GROUP BY thread_id) AS t
        LEFT JOIN assistant_threads AS a ON a.project_id = $1::VARCHAR AND a.thread_id = t.thread_id
        WHERE a.thread_id IS NULL OR t.turns > a.turns) AS waiting`,
    [projectId],
  );
  const fetched = Number(r?.['fetched'] ?? 0);
  const gone = Number(r?.['gone'] ?? 0);
  return fetched + gone === 0 ? null : { fetched, gone, waiting: Number(r?.['waiting'] ?? 0) };
}

async function budgetStatus(
  src: StatusSource,
  spec: RateLimitSpec,
  limitSource: 'flag' | 'default',
  now: number,
  budgetScope: string | undefined,
): Promise<BudgetStatus> {
  const spent = await src.runs.ledgerSince(now - spec.windowMs, budgetScope);
  const budget = new RequestBudget(spec, { spent, now: () => now });
  const inWindow = budget.spentInWindow(now);
  const wait = budget.waitTimeMs(now);
  const oldest = spent.filter((t) => t > now - spec.windowMs).sort((a, b) => a - b)[0];
  return {
    rateLimit: spec.text,
    limitSource,
    overLimit: inWindow > spec.limit,
    limit: spec.limit,
    windowMs: spec.windowMs,
    spent: inWindow,
    remaining: Math.max(0, spec.limit - inWindow),
    nextSlotAt: new Date(now + wait).toISOString(),
    nextSlotInMs: wait,
    oldestFreesAt: oldest !== undefined ? new Date(oldest + spec.windowMs).toISOString() : null,
  };
}

/**
 * Everything `status` shows, read from the database alone (no API call): coverage and gaps per
 * project and stream, partial, truncated, failed and deferred days, the last runs, and the request budget as the
 * ledger has it, judged against `rateLimit` (the same sliding window sync uses).
 */
export async function gatherStatus(
  from: StatusSource | Destination,
  opts: StatusOptions,
): Promise<StatusReport> {
  const src = 'runs' in from ? from : statusSourceOf(from);
  const now = opts.now ?? Date.now();
  const perProject = opts.runs ?? 5;
  const coverage = await coverageByStream(src);
  // A run left 'running' by a process that died is shown as what it is, not as still going.
  const runs: RunRecord[] = [];
  for (const r of await src.runs.recentRuns(RUN_HISTORY)) {
    const dead = r.status === 'running' && !(await src.syncRunning(r.projectIds));
    runs.push(dead ? { ...r, status: 'failed' as const, error: STALE_RUN_ERROR } : r);
  }
  const projects: ProjectStatus[] = [];
  for (const projectId of await projectIds(src)) {
    const mine = runs.filter((r) => r.projectIds.includes(projectId)).slice(0, perProject);
    const events = await eventsByRun(
      src.session,
      projectId,
      mine.map((r) => r.runId),
    );
    const recent = mine.map((r) => withEvents(summarizeRun(r, now), events.get(r.runId)));
    projects.push(await projectStatus(src, projectId, coverage.get(projectId), recent));
  }
  const unmapped = await unmappedSubdomains(src.session);
  return {
    db: src.label,
    now: new Date(now).toISOString(),
    budget: await budgetStatus(src, opts.rateLimit, opts.limitSource ?? 'flag', now, opts.budgetScope),
    projects,
    ...(unmapped.length > 0 ? { unmappedEvents: unmapped } : {}),
  };
}
