import { describe, expect, it } from 'vitest';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';

/** The service's 100 requests an hour are shared by every analytics endpoint, opt-in ones too. */
const TODAY = '2026-03-04';
const NOW = Date.parse(`${TODAY}T12:00:00Z`);
const emulator = emulatorsPerTest({ seed: 7, days: 20, paths: 30, today: TODAY });

describe('requests of the opt-in endpoints', () => {
  it('are kept in the ledger and count against the next run, whatever streams it syncs', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const streams = 'assistant,assistant_threads,feedback_by_page';
    const first = await runSync(
      emulatorSyncOptions(emu, db, {
        streams: parseStreams(streams),
        from: '2026-02-23',
        to: '2026-02-26',
        maxThreads: 3,
        now: () => NOW,
      }),
    );
    expect(first.status).toBe('succeeded');
    const byEndpoint = await readRows<{ endpoint: string; n: number }>(
      db,
      'SELECT endpoint, count(*)::INT AS n FROM api_requests GROUP BY endpoint ORDER BY endpoint',
    );
    expect(byEndpoint).toEqual([
      { endpoint: 'assistant', n: expect.any(Number) as number },
      { endpoint: 'assistant.threads', n: 3 },
      { endpoint: 'feedback.by-page', n: 3 },
    ]);
    expect(first.requests).toBe(emu.stats.requests);

    for (const next of [streams, 'visitors']) {
      const plan = await runSync(
        emulatorSyncOptions(emu, db, { streams: parseStreams(next), dryRun: true, now: () => NOW + 60_000 }),
      );
      expect(plan.budget.spentBefore, next).toBe(first.requests);
    }
  });
});
