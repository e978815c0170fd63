import { EXIT } from '../errors.js';
import type { Place } from '../load/destination.js';
import { finishRun } from '../load/runs.js';
import { syncEvents, type CheckedEvents, type EventsSummary } from './event-sync.js';
import type { SyncOptions } from './sync-options.js';
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
): Promise<EventsSummary> {
  try {
    return await syncEvents(
      {
        place,
        projects: opts.projects,
        runId,
        refresh: opts.refresh === true,
        logger: opts.logger,
        signal: opts.signal,
      },
      events,
    );
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    await endRun(opts, place, runId, { status: 'failed', error, rowsLoaded: 0 }).catch(() => undefined);
    throw e;
  }
}

/** `--streams events`: the run record of a run that sent no request; its status and exit code. */
export async function endEventsOnlyRun(
  opts: SyncOptions,
  place: Place,
  runId: string,
  events: EventsSummary,
): Promise<{ status: SyncStatus; exitCode: number }> {
  const status = events.failed > 0 ? 'incomplete' : 'succeeded';
  await endRun(opts, place, runId, { status, error: events.error, rowsLoaded: events.newEvents });
  return { status, exitCode: events.failed > 0 ? EXIT.windowsFailed : EXIT.ok };
}

/** An object that failed to load makes the run's exit 4, as a failed window does. */
export function withEvents(summary: SyncSummary, events: EventsSummary): SyncSummary {
  const failed = events.failed > 0 && summary.exitCode === EXIT.ok;
  return {
    ...summary,
    events,
    ...(failed ? { exitCode: EXIT.windowsFailed, status: 'incomplete' as const } : {}),
  };
}

async function endRun(
  opts: SyncOptions,
  place: Place,
  runId: string,
  end: { status: 'succeeded' | 'incomplete' | 'failed'; error: string | null; rowsLoaded: number },
): Promise<void> {
  const dest = await place.open('write');
  try {
    await finishRun(dest.session, {
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
    });
  } finally {
    await dest.close();
  }
}
