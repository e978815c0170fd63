import { RequestBudget } from '../api/budget.js';
import type { Database } from '../load/database.js';
import { syncHolder } from '../load/lock.js';
import { ANALYTICS_ENDPOINTS } from '../streams/index.js';
import {
  readDeferredDays,
  readLedgerSince,
  readRecentRuns,
  readSyncState,
  STALE_RUN_ERROR,
  type RunRecord,
} from '../load/runs.js';
import { exclusive, queryRows } from '../load/sql.js';
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

export interface ProjectStatus {
  readonly projectId: string;
  /** null when nothing is loaded yet. */
  readonly coverage: Coverage | null;
  /** Loaded days that were not over when fetched (the next sync fetches them again). */
  readonly partialDays: Day[];
  /** Days whose last attempt failed and that hold no data. */
  readonly failedDays: Day[];
  /** Days a budget- or time-bounded run left for the next one, not loaded since. */
  readonly deferredDays: Day[];
  /** Most recent first. */
  readonly runs: RunSummary[];
}

export interface BudgetStatus {
  readonly rateLimit: string;
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
}

export interface StatusOptions {
  readonly rateLimit: RateLimitSpec;
  readonly now?: number;
  /** Runs shown per project (default 5). */
  readonly runs?: number;
}

/** Runs looked at when picking each project's last few: plenty for any realistic history. */
const RUN_HISTORY = 500;

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

async function read(db: Database, sql: string): Promise<Record<string, unknown>[]> {
  return exclusive(db.connection, () => queryRows(db.connection, sql));
}

async function projectIds(db: Database): Promise<string[]> {
  const rows = await read(
    db,
    `SELECT DISTINCT project_id FROM (
       SELECT project_id FROM site_daily
       UNION ALL SELECT project_id FROM sync_windows
       UNION ALL SELECT unnest(project_ids) AS project_id FROM sync_runs
     ) WHERE project_id IS NOT NULL ORDER BY project_id`,
  );
  return rows.map((r) => String(r['project_id']));
}

async function coverageByProject(db: Database): Promise<Map<string, Coverage>> {
  const rows = await read(
    db,
    "SELECT project_id, first_day, last_day, days_loaded, days_missing, missing_days, last_loaded_at FROM v_coverage WHERE stream = 'visitors'",
  );
  const out = new Map<string, Coverage>();
  for (const r of rows) {
    out.set(String(r['project_id']), {
      firstDay: String(r['first_day']),
      lastDay: String(r['last_day']),
      daysLoaded: Number(r['days_loaded']),
      daysMissing: Number(r['days_missing']),
      missingDays: ((r['missing_days'] as unknown[] | null) ?? []).map(String),
      lastLoadedAt: typeof r['last_loaded_at'] === 'string' ? r['last_loaded_at'] : null,
    });
  }
  return out;
}

async function budgetStatus(db: Database, spec: RateLimitSpec, now: number): Promise<BudgetStatus> {
  const spent = await readLedgerSince(db, now - spec.windowMs, { endpoints: ANALYTICS_ENDPOINTS });
  const budget = new RequestBudget(spec, { spent, now: () => now });
  const inWindow = budget.spentInWindow(now);
  const wait = budget.waitTimeMs(now);
  const oldest = spent.filter((t) => t > now - spec.windowMs).sort((a, b) => a - b)[0];
  return {
    rateLimit: spec.text,
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
 * project, partial, failed and deferred days, the last runs, and the request budget as the
 * ledger has it, judged against `rateLimit` (the same sliding window sync uses).
 */
export async function gatherStatus(db: Database, opts: StatusOptions): Promise<StatusReport> {
  const now = opts.now ?? Date.now();
  const perProject = opts.runs ?? 5;
  const coverage = await coverageByProject(db);
  // A run left 'running' by a process that died is shown as what it is, not as still going.
  const live = await syncHolder(db.path);
  const runs = (await readRecentRuns(db, RUN_HISTORY)).map((r) =>
    r.status === 'running' && live === undefined
      ? { ...r, status: 'failed' as const, error: STALE_RUN_ERROR }
      : r,
  );
  const projects: ProjectStatus[] = [];
  for (const projectId of await projectIds(db)) {
    const state = await readSyncState(db, projectId);
    const failed = new Set(state.failedDays);
    projects.push({
      projectId,
      coverage: coverage.get(projectId) ?? null,
      partialDays: state.partialDays,
      failedDays: state.failedDays,
      // A failed day is also left for the next run; it is listed once, as failed.
      deferredDays: (await readDeferredDays(db, projectId)).filter((d) => !failed.has(d)),
      runs: runs
        .filter((r) => r.projectIds.includes(projectId))
        .slice(0, perProject)
        .map((r) => summarizeRun(r, now)),
    });
  }
  return {
    db: db.path,
    now: new Date(now).toISOString(),
    budget: await budgetStatus(db, opts.rateLimit, now),
    projects,
  };
}
