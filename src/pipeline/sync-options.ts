import type { ApiKey } from '../api/key.js';
import type { Timeouts } from '../api/client.js';
import type { Day } from '../util/day.js';
import type { RateLimitSpec } from '../util/duration.js';
import type { Logger } from '../util/log.js';
import { DEFAULT_STREAMS, streamByName, type StreamDefinition } from '../streams/index.js';
import type { ProgressSink } from './progress.js';
import type { Place } from '../load/destination.js';
import type { EventSyncSettings } from './event-sync.js';
import type { EventProgressSink } from './event-progress.js';

/**
 * What a sync run is asked to do, as the CLI (or a test) says it, and the streams that makes.
 * Its own module so that the run (sync-run.ts) and its entry point (sync.ts) both read it and
 * the entry point alone imports the run.
 */

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
  /** What `--db` names (a DuckDB file or a PostgreSQL URL), when `place` is not given (tests). */
  readonly dbPath?: string;
  /** The destination (default: what dbPath names). */
  readonly place?: Place;
  /**
   * Whose requests count against this run's budget (src/api/budget-scope.ts): recorded on every
   * request; default, every request in the ledger counts.
   */
  readonly budgetScope?: string | undefined;
  /** Aborted when the run's lock goes away while held (set by runSync, not by callers). */
  readonly lockLost?: AbortSignal | undefined;
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
  /** The event phase's display: objects, bytes and events. */
  readonly eventProgress?: EventProgressSink | undefined;
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
  /** sync --events: the Enterprise event stream to load too (no API request). */
  readonly events?: EventSyncSettings | undefined;
  /** Aborting stops new days and in-flight requests; finished days are still loaded. */
  readonly signal?: AbortSignal;
}

/** The API streams the run syncs: the ones asked for, else the default set (none: events only). */
export function streamsOf(opts: SyncOptions): readonly StreamDefinition[] {
  return opts.streams ?? DEFAULT_STREAMS.map(streamByName);
}

/** The streams as the run record and the summary name them: the API streams, then `events`. */
export function streamNames(opts: SyncOptions): string[] {
  return [...streamsOf(opts).map((s) => s.name), ...(opts.events !== undefined ? ['events'] : [])];
}
