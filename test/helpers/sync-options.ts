import { afterEach } from 'vitest';
import { validateApiKey } from '../../src/api/key.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import type { SyncOptions } from '../../src/pipeline/sync.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';

/**
 * A sync against an in-process emulator as the integration tests run it: a budget that never
 * waits, short backoffs, the file released soon after the last load. `over` names the streams.
 */
export function emulatorSyncOptions(
  emu: Pick<Emulator, 'url' | 'projectId' | 'apiKey'>,
  dbPath: string,
  over: Partial<SyncOptions> & Pick<SyncOptions, 'streams'>,
): SyncOptions {
  return {
    projects: [emu.projectId],
    lookback: 3,
    dbPath,
    rateLimit: parseRateLimit('100000/1h'),
    maxWaitMs: 60_000,
    concurrency: 4,
    includeToday: false,
    dryRun: false,
    apiUrl: emu.url,
    apiKey: validateApiKey(emu.apiKey, 'test key'),
    logger: silentLogger,
    backoff: { minMs: 5, maxMs: 50 },
    idleCloseMs: 50,
    ...over,
  };
}

/**
 * A clock that reads `iso` now and ticks with the machine's from there: a test pins its "today"
 * while the waits it makes (the budget's, retries) still pass in real time.
 */
export function clockFrom(iso: string): () => number {
  const offset = Date.parse(iso) - Date.now();
  return () => Date.now() + offset;
}

/**
 * Starts emulators with these defaults for the tests of one file, each closed after its test.
 * Call it at the top of the file (it registers the afterEach).
 */
export function emulatorsPerTest(defaults: EmulatorOptions): (opts?: EmulatorOptions) => Promise<Emulator> {
  const started: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.close()));
  });
  return async (opts = {}) => {
    const e = await startEmulator({ ...defaults, ...opts });
    started.push(e);
    return e;
  };
}
