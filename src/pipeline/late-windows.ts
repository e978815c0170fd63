import type { PlannedWindow } from '../extract/plan.js';
import type { Destination } from '../load/destination.js';
import { DEFAULT_MAX_THREADS } from '../streams/names.js';
import { streamsOf, type SyncOptions } from './sync-options.js';

/**
 * The windows of the streams planned from what is loaded (assistant threads), per project and
 * stream: what the run fetches once its other windows are committed, and what --dry-run lists.
 */
export async function planLateWindows(
  db: Destination,
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
