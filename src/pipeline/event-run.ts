import { EXIT } from '../errors.js';
import type { Destination, Place } from '../load/destination.js';
import { finishRun } from '../load/runs.js';
import { syncEvents, type CheckedEvents, type EventsSummary } from './event-sync.js';
import { streamsOf, type SyncOptions } from './sync-options.js';
import type { StopReason } from './limits.js';
import type { SyncStatus, SyncSummary } from './sync-summary.js';

/**
 * The event stream's part of a sync run and its run record: the event phase, the end of a run
 * that loaded only events (`--streams events`), and the events' share of the summary.
 */

/** Loads the event stream; a failure of the whole source ends the run record as failed. */
export async function runEventPhase(
  opts: SyncOptions,
  events: CheckedEvents,
  place: Place,
  runId: string,
  started: number,
): Promise<EventsSummary> {
  const eventsOnly = streamsOf(opts).length === 0;
  try {
    return await syncEvents(
      {
        place,
        projects: opts.projects,
        runId,
        refresh: opts.refresh === true,
        logger: opts.logger,
        signal: opts.signal,
        // --max-duration bounds the whole run, this phase included: no object starts past it.
        deadline: opts.maxDurationMs === undefined ? undefined : started + opts.maxDurationMs,
        now: opts.now,
        progress: opts.eventProgress,
        // A run that loads only events ends with this phase: its record goes in through the same open.
        end: eventsOnly ? (dest, loaded) => finishEventsOnlyRun(opts, dest, runId, loaded) : undefined,
      },
      events,
    );
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    await endRun(opts, place, runId, { status: 'failed', error, rowsLoaded: 0 }).catch(() => undefined);
    throw e;
  }
}

/** `--streams events`: the status and exit code of a run that sent no request. */
export function endEventsOnlyRun(events: EventsSummary): {
  status: SyncStatus;
  exitCode: number;
  stopReason: StopReason | null;
} {
  return {
    status: eventsOnlyStatus(events),
    exitCode: eventsExitCode(events),
    stopReason: events.stopReason,
  };
}

function eventsOnlyStatus(events: EventsSummary): 'incomplete' | 'succeeded' {
  return events.failed > 0 || events.stopReason !== null ? 'incomplete' : 'succeeded';
}

/** `--streams events`: the record of a run that sent no request, written by the event phase's open. */
async function finishEventsOnlyRun(
  opts: SyncOptions,
  dest: Destination,
  runId: string,
  events: EventsSummary,
): Promise<void> {
  const end = { status: eventsOnlyStatus(events), error: eventsError(events), rowsLoaded: events.newEvents };
  await finishRun(dest.session, runRecord(opts, runId, end));
}

/** Interrupted: 130, as the API path; a failed object: 4; stopped by --max-duration: 0 (said in the summary). */
function eventsExitCode(events: EventsSummary): number {
  if (events.stopReason === 'interrupted') return EXIT.interrupted;
  return events.failed > 0 ? EXIT.windowsFailed : EXIT.ok;
}

/** The run record's error: the first failed object, and why the phase stopped early. */
function eventsError(events: EventsSummary): string | null {
  const parts = [
    events.failed > 0
      ? `${events.failed} event object(s) could not be read, first ${events.error ?? ''}`
      : '',
    events.stopReason === 'interrupted'
      ? `events: interrupted after ${events.loaded} object(s) loaded; the next run reads the rest`
      : '',
    events.stopReason === 'max-duration'
      ? `events: --max-duration reached after ${events.loaded} object(s) loaded; the next run reads the rest`
      : '',
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join('; ') : null;
}

/**
 * An object that failed to load makes the run's exit 4, as a failed window does; a signal during
 * the event phase makes it 130 and the run incomplete, whatever the API streams did after it.
 */
export function withEvents(summary: SyncSummary, events: EventsSummary): SyncSummary {
  const over: Partial<SyncSummary> = {};
  if (events.stopReason === 'interrupted') {
    Object.assign(over, { exitCode: EXIT.interrupted, status: 'incomplete', stopReason: 'interrupted' });
  } else if (events.failed > 0 && summary.exitCode === EXIT.ok) {
    Object.assign(over, { exitCode: EXIT.windowsFailed, status: 'incomplete' });
  } else if (events.stopReason === 'max-duration' && summary.status === 'succeeded') {
    Object.assign(over, { status: 'incomplete', stopReason: 'max-duration' });
  }
  return { ...summary, events, ...over };
}

async function endRun(opts: SyncOptions, place: Place, runId: string, end: RunEnd): Promise<void> {
  const dest = await place.open('write');
  try {
    await finishRun(dest.session, runRecord(opts, runId, end));
  } finally {
    await dest.close();
  }
}

type RunEnd = { status: 'succeeded' | 'incomplete' | 'failed'; error: string | null; rowsLoaded: number };

function runRecord(opts: SyncOptions, runId: string, end: RunEnd): Parameters<typeof finishRun>[1] {
  return {
    runId,
    ...end,
    deferredDays: [],
    finishedAt: new Date((opts.now ?? Date.now)()),
    windowsLoaded: 0,
    windowsFailed: 0,
    windowsDeferred: 0,
    requests: 0,
    retries: 0,
    warnings: 0,
  };
}
