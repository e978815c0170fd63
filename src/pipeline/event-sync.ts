import { EtlError, EXIT } from '../errors.js';
import type { Destination, Place } from '../load/destination.js';
import type { EventRow } from '../load/event-rows.js';
import {
  eventHashKey,
  hasEventLedger,
  loadEventObject,
  type EventObjectCounts,
  type LoadedObjects,
} from '../load/event-objects.js';
import { openEventSource, type EventSource } from '../sources/events/event-source.js';
import { emptySourceHint } from '../sources/events/empty-source.js';
import { EventSourceUsageError } from '../sources/events/errors.js';
import { readLines } from '../sources/events/object-lines.js';
import type { ReadBoundsOptions } from '../sources/events/read-bounds.js';
import { parseEventLine } from '../sources/events/parse-line.js';
import { loadTrafficClasses, type TrafficLists } from '../sources/events/traffic-class.js';
import type { EventObject } from '../sources/events/types.js';
import type { Logger } from '../util/log.js';
import { escapeControl } from '../util/safe-text.js';
import { FailedObjects, type FailedObject } from './event-failed-objects.js';
import {
  emptyEventLedger,
  listAgainstLedger,
  readEventLedger,
  warnMapping,
  type ListedObject,
} from './event-listing.js';
import { EventProgress, type EventProgressSink } from './event-progress.js';
import { eventProjects, type EventProjects } from './event-projects.js';
import { listAhead } from './listing-ahead.js';

/**
 * How many listed objects may wait for their read: a year of hourly objects of one deployment
 * (8,760) is listed whole at once, so the bar's totals are exact from the start; beyond it they
 * are exact once the reads are within this many of the end. About 6 MiB held at most (20,000
 * listed objects with 80-character keys measured 12.5 MiB of heap), however long the listing.
 */
const LISTED_AHEAD = 10_000;

/** What `sync --events` is asked to load (the CLI's flags, or a test's). */
export interface EventSyncSettings {
  /** `s3://BUCKET/PREFIX` or a folder laid out like the bucket. */
  readonly source: string;
  /** --events-project: subdomain -> project id. */
  readonly projectBySubdomain?: ReadonlyMap<string, string> | undefined;
  /** --traffic-classes: the user agent lists (default: the packaged config/traffic-classes.json). */
  readonly trafficClassesFile?: string | undefined;
  /** How far before the newest loaded object a late one may be named (default 2 days). */
  readonly lookbackMs?: number;
  /** The clock a key's time is compared with (a key named beyond it moves no listing start). */
  readonly now?: () => number;
  /** Tests: the source to read (default: what `source` names). */
  readonly openSource?: (spec: string) => Promise<EventSource>;
  /** --events-skip: keys recorded as skipped on purpose (not read until their ETag changes). */
  readonly skipObjects?: readonly string[] | undefined;
  /** --events-read: keys read in this run whatever the failure ledger says. */
  readonly readObjects?: readonly string[] | undefined;
  /** The bounds of each object's read (read-bounds.ts defaults; small values in tests). */
  readonly readBounds?: ReadBoundsOptions | undefined;
}

/** Why the event phase stopped before the end of its work (the rest is left for the next run). */
export type EventsStopReason = 'interrupted' | 'max-duration';

/** The event stream's part of a run's summary. */
export interface EventsSummary {
  readonly source: string;
  /** Objects the listing gave. */
  readonly listed: number;
  /** Objects loaded by this run. */
  readonly loaded: number;
  /** Objects listed that every project had loaded already (not read). */
  readonly skipped: number;
  /** Objects whose read failed (rolled back, recorded; the next runs read them again). */
  readonly failed: number;
  /** Those objects: key, cause, attempts at this ETag. */
  readonly failedObjects: readonly FailedObject[];
  /** Recorded failures of earlier runs read again by key (the listing did not give them). */
  readonly retried: number;
  /** Set when the phase stopped early: a signal, or --max-duration (between objects). */
  readonly stopReason: EventsStopReason | null;
  readonly lines: number;
  readonly events: number;
  readonly newEvents: number;
  readonly rejected: number;
  readonly unmapped: number;
  readonly listRequests: number;
  readonly getRequests: number;
  readonly error: string | null;
}

export interface EventSyncRun {
  readonly place: Place;
  readonly projects: readonly string[];
  readonly runId: string;
  readonly refresh: boolean;
  readonly logger: Logger;
  readonly signal?: AbortSignal | undefined;
  /** Epoch ms (by `now`) after which no object starts: --max-duration. */
  readonly deadline?: number | undefined;
  readonly now?: (() => number) | undefined;
  /** A display of the phase's counts (a terminal's bar). */
  readonly progress?: EventProgressSink | undefined;
  /**
   * What the run writes last when the phase ends (the record of a run that loaded only events),
   * through the file the phase holds: opening a DuckDB file again for one row costs a checkpoint.
   */
  readonly end?: ((dest: Destination, summary: EventsSummary) => Promise<void>) | undefined;
}

/** The settings with what they name resolved: the project of each subdomain, the class lists. */
export interface CheckedEvents {
  readonly settings: EventSyncSettings;
  readonly projects: EventProjects;
  readonly classes: TrafficLists;
}

/**
 * Refuses what can be refused before anything is locked or read: the project mapping, the class
 * lists (read once, here).
 */
export function checkEventSettings(settings: EventSyncSettings, projects: readonly string[]): CheckedEvents {
  return {
    settings,
    projects: eventProjects(projects, settings.projectBySubdomain),
    classes: loadTrafficClasses(settings.trafficClassesFile),
  };
}

/**
 * Loads the objects of the event stream that the destination lacks, in key order (= time order),
 * each in its own transaction with its ledger rows. Spends no API request. A whole-source failure
 * (credentials, a missing bucket) is thrown; an object that fails to read is recorded in the
 * failure ledger and the run goes on; after the listing, the failures recorded by earlier runs are
 * read again by key. A signal or --max-duration stops it between objects.
 */
export async function syncEvents(run: EventSyncRun, checked: CheckedEvents): Promise<EventsSummary> {
  const { projects, classes, settings } = checked;
  const source = await openSource(settings, run.signal);
  // As the writer: DuckDB's memory_limit capped (DEFAULT_WRITER_MEMORY_LIMIT). Uncapped, DuckDB kept
  // the table's blocks and a big object's stage cached: 466 MiB peak for a 116 MB object, 303 capped
  // (BENCHMARKS.md, benchmark 12); its joins and aggregates spill to disk past the cap.
  const dest = await run.place.open('writer').catch((e: unknown) => {
    source.close();
    throw e;
  });
  const t = new Tally(source);
  const progress = new EventProgress(run.progress);
  try {
    // Made at the first object read, not before: a run that reads none (an empty source) writes nothing.
    let made: Promise<Buffer> | undefined;
    const hashKey = (): Promise<Buffer> => (made ??= eventHashKey(dest.session));
    const ledger = await readEventLedger(dest.session, source.label, projects.targets, run.logger);
    const failures = await FailedObjects.open(
      dest.session,
      source,
      { projects: projects.targets, runId: run.runId, now: run.now ?? Date.now, logger: run.logger },
      { skip: settings.skipObjects, read: settings.readObjects },
    );
    t.failedObjects = failures.failed;
    const bounds = settings.readBounds;
    const ctx: ReadContext = { dest, run, source, projects, hashKey, classes, t, failures, bounds, progress };
    progress.start();
    const whole = await readListed(ctx, listAgainstLedger(source, ledger, checked, run.refresh));
    if (whole) await warnMapping(ledger, projects);
    await retryFailed(ctx, ledger.loaded);
    if (t.listed === 0 && ledger.loaded.size === 0 && failures.failed.length === 0 && t.stopReason === null)
      await refuseEmptySource(checked.settings.source);
    await run.end?.(dest, t.summary());
  } finally {
    progress.stop();
    source.close();
    await dest.close();
  }
  return t.summary();
}

/**
 * The listing's objects, each read when some project wants it; a signal ends it quietly. The
 * listing runs ahead of the reads (listing-ahead.ts) so the display knows what is left. True when
 * the listing was read to its end.
 */
async function readListed(ctx: ReadContext, listing: AsyncIterable<ListedObject>): Promise<boolean> {
  const { run, t, failures, progress } = ctx;
  // Which projects read it is settled as it is listed (the skips and --events-read of this run),
  // so the bytes to read are known ahead; no read changes the answer for another key.
  async function* wanted(): AsyncGenerator<ListedObject & { readonly want: readonly string[] }> {
    for await (const item of listing) yield { ...item, want: failures.wanting(item.obj, item.wanting) };
  }
  const ahead = listAhead(wanted(), LISTED_AHEAD, {
    onListed: ({ obj, want }) => progress.listed(obj.size, want.length > 0),
    onEnd: () => progress.listingEnded(),
  });
  try {
    for await (const { obj, wanting, want } of ahead) {
      if (stopped(run, t)) return false;
      t.listed++;
      if (want.length === 0) {
        t.skipped++;
        progress.skipped();
        // Loaded by every project (a run killed before it cleared the row): nothing left failing.
        if (wanting.length === 0) await failures.loaded(obj.key, ctx.projects.targets);
        continue;
      }
      await readObject(ctx, obj, want);
    }
    return true;
  } catch (e) {
    // A listing request the signal aborted: the run stops here, as between two objects.
    if (run.signal?.aborted !== true) throw e;
    t.stopReason ??= 'interrupted';
    return false;
  } finally {
    await ahead.close();
  }
}

interface ReadContext {
  readonly dest: Destination;
  readonly run: EventSyncRun;
  readonly source: EventSource;
  readonly projects: EventProjects;
  readonly hashKey: () => Promise<Buffer>;
  readonly classes: TrafficLists;
  readonly t: Tally;
  readonly failures: FailedObjects;
  readonly bounds: ReadBoundsOptions | undefined;
  readonly progress: EventProgress;
}

/** Stops between objects: on a signal, or once --max-duration is reached. */
function stopped(run: EventSyncRun, t: Tally): boolean {
  if (t.stopReason !== null) return true;
  if (run.signal?.aborted === true) t.stopReason = 'interrupted';
  else if (run.deadline !== undefined && (run.now ?? Date.now)() >= run.deadline)
    t.stopReason = 'max-duration';
  return t.stopReason !== null;
}

/** Loads one object for `wanting`; a failure of the object alone is recorded, and the run goes on. */
async function readObject(ctx: ReadContext, obj: EventObject, wanting: readonly string[]): Promise<void> {
  const { run, t, progress } = ctx;
  progress.reading();
  try {
    await loadOne(ctx.dest, { ...ctx, obj, wanting });
    t.loaded++;
    progress.read(obj.size, true);
    await ctx.failures.loaded(obj.key, wanting);
  } catch (e) {
    progress.read(obj.size, false);
    if (isWholeSourceFailure(e)) throw e;
    // Rolled back by the signal, not failed: the next run reads it as any other.
    if (stopped(run, t)) return;
    await recordFailure(ctx, obj, wanting, e);
  }
}

async function recordFailure(
  ctx: ReadContext,
  obj: EventObject,
  wanting: readonly string[],
  e: unknown,
): Promise<void> {
  ctx.t.failed++;
  let f: FailedObject;
  try {
    f = await ctx.failures.failedToRead(obj, wanting, e);
  } catch {
    // The destination refuses even the failure's row: that is the run's failure, not the object's.
    throw e;
  }
  ctx.t.error ??= `${escapeControl(obj.key)}: ${f.cause}`;
  ctx.run.logger.warn(
    `events: ${ctx.source.label}${obj.key} was not loaded (${f.cause}); failed ${f.attempts} time(s) at this ETag: the next run reads it again (sync --events-skip KEY skips it on purpose)`,
  );
}

/**
 * The failures recorded by earlier runs that the listing did not give (it starts after the loaded
 * keys), and the keys of --events-read: each looked up by key (its ETag now) and read again.
 */
async function retryFailed(ctx: ReadContext, loaded: LoadedObjects): Promise<void> {
  const targets = ctx.projects.targets;
  for (const key of ctx.failures.toRetry()) {
    if (stopped(ctx.run, ctx.t)) return;
    let obj: EventObject | undefined;
    try {
      obj = await ctx.source.stat(key);
    } catch (e) {
      if (stopped(ctx.run, ctx.t)) return;
      if (isWholeSourceFailure(e)) throw e;
      await recordFailure(ctx, ctx.failures.known(key), targets, e);
      continue;
    }
    if (obj === undefined) {
      await ctx.failures.gone(key);
      ctx.run.logger.warn(
        `events: ${ctx.source.label}${key} is no longer in the source: its failure is forgotten, nothing to read`,
      );
      continue;
    }
    const found = obj;
    const lacking = targets.filter((p) => loaded.get(key)?.get(p) !== found.etag);
    // Loaded at this ETag by every project (a run killed before it cleared the row): nothing failing.
    if (lacking.length === 0) {
      await ctx.failures.loaded(key, targets);
      continue;
    }
    // Skipped on purpose, and still the same bytes: left alone.
    const wanting = ctx.failures.wanting(found, lacking);
    if (wanting.length === 0) continue;
    ctx.t.retried++;
    ctx.progress.listed(found.size, true);
    await readObject(ctx, found, wanting);
  }
}

/** What sync --dry-run says of the event stream: the objects a run would read now. */
export interface EventsPlan {
  readonly source: string;
  readonly listed: number;
  /** Objects some project lacks: the run would read each once. */
  readonly toRead: number;
  /** Their size as stored (compressed for gzip). */
  readonly bytes: number;
  readonly listRequests: number;
}

/**
 * Lists the source as the run would (from the same start, against the same ledger) without
 * reading an object or writing anything: S3 LIST requests only, never an API request. `dest` is
 * the destination opened for reading, or undefined when it does not exist yet; one without the
 * ledger yet (made by an older version: only a sync migrates) has loaded nothing.
 */
export async function planEvents(
  dest: Destination | undefined,
  checked: CheckedEvents,
  refresh: boolean,
  signal?: AbortSignal,
): Promise<EventsPlan> {
  const source = await openSource(checked.settings, signal);
  try {
    const ledger =
      dest === undefined || !(await hasEventLedger(dest.session))
        ? emptyEventLedger()
        : await readEventLedger(dest.session, source.label, checked.projects.targets);
    let listed = 0;
    let toRead = 0;
    let bytes = 0;
    for await (const { obj, wanting } of listAgainstLedger(source, ledger, checked, refresh)) {
      listed++;
      if (wanting.length > 0) {
        toRead++;
        bytes += obj.size;
      }
    }
    return { source: source.label, listed, toRead, bytes, listRequests: source.stats.listRequests };
  } finally {
    source.close();
  }
}

function openSource(settings: EventSyncSettings, signal: AbortSignal | undefined): Promise<EventSource> {
  const open =
    settings.openSource ?? ((spec: string) => openEventSource(spec, signal !== undefined ? { signal } : {}));
  return open(settings.source);
}

/** Credentials refused, a bucket that does not exist: no other object would fare better. */
function isWholeSourceFailure(e: unknown): boolean {
  return e instanceof EtlError && (e.exitCode === EXIT.auth || e.exitCode === EXIT.usage);
}

interface ObjectJob {
  readonly run: EventSyncRun;
  readonly source: EventSource;
  readonly obj: EventObject;
  readonly wanting: readonly string[];
  readonly projects: EventProjects;
  readonly hashKey: () => Promise<Buffer>;
  readonly classes: TrafficLists;
  readonly t: Tally;
  readonly bounds?: ReadBoundsOptions | undefined;
  readonly progress: EventProgress;
}

/**
 * A source that lists no object, into a destination that never loaded one from it: most often a
 * mistyped prefix or folder. Exit 2, saying what the level above holds; nothing was written.
 */
async function refuseEmptySource(spec: string): Promise<void> {
  const hint = await emptySourceHint(spec);
  throw new EventSourceUsageError(`${hint.text}: check the prefix in --events (or MINTLIFY_ETL_EVENTS)`, {
    source: spec,
  });
}

async function loadOne(dest: Destination, job: ObjectJob): Promise<void> {
  const hashKey = await job.hashKey();
  const { obj, run } = job;
  const counts = {
    lines: 0,
    events: 0,
    rejected: 0,
    unmapped: 0,
    unmappedBySubdomain: new Map<string, number>(),
  };
  const wanting = new Set(job.wanting);
  async function* batches(): AsyncGenerator<readonly EventRow[]> {
    const body = await job.source.open(obj);
    const bounds = job.bounds === undefined ? {} : { bounds: job.bounds };
    for await (const batch of readLines(body, { objectSize: obj.size, ...bounds })) {
      if (run.signal?.aborted) throw new Error('interrupted before the object was read whole');
      const rows: EventRow[] = [];
      const before = counts.events;
      counts.lines += batch.tooLong;
      counts.rejected += batch.tooLong;
      for (const line of batch.lines) {
        counts.lines++;
        const r = parseEventLine(line, hashKey, job.classes);
        if (r.kind === 'blank') continue;
        if (r.kind === 'rejected') {
          counts.rejected++;
          continue;
        }
        counts.events++;
        const project = job.projects.projectOf(r.event.subdomain);
        if (project === undefined) countUnmapped(counts, r.event.subdomain);
        else if (wanting.has(project)) rows.push({ ...r.event, project_id: project, object_key: obj.key });
      }
      job.progress.eventsRead(counts.events - before);
      yield rows;
    }
  }
  const added = await loadEventObject(
    dest,
    {
      source: job.source.label,
      key: obj.key,
      etag: obj.etag,
      size: obj.size,
      projects: job.wanting,
      runId: run.runId,
    },
    batches(),
    (): EventObjectCounts => counts,
  );
  const n = [...added.values()].reduce((a, b) => a + b, 0);
  job.t.add(counts, n);
  run.logger.debug(
    `events: loaded ${obj.key}: ${n} new of ${counts.events} event(s), ${counts.rejected} rejected line(s)`,
  );
}

/** An event no mapping names: counted, and per subdomain recorded (event-unmapped.ts) for a later mapping. */
function countUnmapped(
  counts: { unmapped: number; unmappedBySubdomain: Map<string, number> },
  subdomain: string | null,
): void {
  counts.unmapped++;
  if (subdomain === null || subdomain === '') return;
  const sub = subdomain.toLowerCase();
  counts.unmappedBySubdomain.set(sub, (counts.unmappedBySubdomain.get(sub) ?? 0) + 1);
}

class Tally {
  listed = 0;
  loaded = 0;
  skipped = 0;
  failed = 0;
  retried = 0;
  failedObjects: readonly FailedObject[] = [];
  stopReason: EventsStopReason | null = null;
  error: string | null = null;
  #lines = 0;
  #events = 0;
  #newEvents = 0;
  #rejected = 0;
  #unmapped = 0;
  constructor(private readonly source: EventSource) {}
  add(c: EventObjectCounts, added: number): void {
    this.#lines += c.lines;
    this.#events += c.events;
    this.#rejected += c.rejected;
    this.#unmapped += c.unmapped;
    this.#newEvents += added;
  }
  summary(): EventsSummary {
    return {
      source: this.source.label,
      listed: this.listed,
      loaded: this.loaded,
      skipped: this.skipped,
      failed: this.failed,
      failedObjects: this.failedObjects,
      retried: this.retried,
      stopReason: this.stopReason,
      lines: this.#lines,
      events: this.#events,
      newEvents: this.#newEvents,
      rejected: this.#rejected,
      unmapped: this.#unmapped,
      listRequests: this.source.stats.listRequests,
      getRequests: this.source.stats.getRequests,
      error: this.error,
    };
  }
}
