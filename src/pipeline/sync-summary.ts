import type { QualityKind } from '../extract/quality.js';
import type { SkippedWindow } from '../extract/plan.js';
import type { Day } from '../util/day.js';
import type { StopReason } from './limits.js';
import type { EventsPlan, EventsSummary } from './event-sync.js';

/**
 * What a sync run reports when it ends (the CLI prints it, --json writes it): written by the run
 * (sync-run.ts) and by the entry point (sync.ts) for a dry run or a run that never started.
 */

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
  /**
   * The service answered 429 and the run stopped on it: how long it asked to wait (null when it
   * gave no Retry-After) and the advice the summary line gives.
   */
  /**
   * The service's date (its answers' Date header) is earlier than this machine's: the windows
   * after it were left out, neither fetched nor deferred.
   */
  readonly clockAhead?: { readonly service: Day; readonly local: Day; readonly leftOut: number };
  readonly serviceRefused?: { readonly retryAfterMs: number | null; readonly advice: string };
  /** The API could not be reached (no request got through): its URL and why, in words. */
  readonly unreachable?: { readonly apiUrl: string; readonly reason: string };
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
  /** sync --events: what the event stream's objects gave (no API request spent on them). */
  readonly events?: EventsSummary;
  /** sync --events --dry-run: the objects a run would read now. */
  readonly eventsPlan?: EventsPlan;
  readonly error: string | null;
}
