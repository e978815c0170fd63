import type { SyncOptions } from '../../src/pipeline/sync.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';

/**
 * `sync --streams events` as the in-process tests run it: one project, no API stream (the API URL
 * is a closed port no request is sent to), a budget that never waits. `over` names the
 * destination (dbPath or place) and the event settings.
 */
export function eventOnlySyncOptions(
  project: string,
  over: Partial<SyncOptions> & Pick<SyncOptions, 'events'>,
): SyncOptions {
  return {
    projects: [project],
    streams: [],
    lookback: 3,
    rateLimit: parseRateLimit('100/1h'),
    maxWaitMs: 60_000,
    concurrency: 1,
    includeToday: false,
    dryRun: false,
    apiUrl: 'http://127.0.0.1:9',
    logger: silentLogger,
    ...over,
  };
}
