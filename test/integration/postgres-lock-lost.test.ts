import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { EXIT } from '../../src/errors.js';
import { pgPlace } from '../../src/load/postgres/place.js';
import { parseDbTarget } from '../../src/load/target.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';
import { waitFor } from '../helpers/wait.js';

/*
 * A sync's advisory locks live on a connection of their own. When it breaks (a server restart, a
 * DBA ending it), another run may take the projects: the run stops starting windows, keeps what
 * it loaded, says so, and exits 5 rather than loading on as if it still held them.
 */
describe.skipIf(!hasPostgres())('a sync whose lock connection breaks', () => {
  let server: PostgresServer;
  let emu: Emulator;

  beforeAll(async () => {
    [server, emu] = await Promise.all([
      startPrivatePostgres(),
      startEmulator({ seed: 4, days: 30, paths: 20 }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
    await server?.stop();
  });

  it('stops, defers the rest, and exits 5', async () => {
    const target = parseDbTarget(server.url, 'lost');
    if (target.kind !== 'postgres') throw new Error('not a PostgreSQL target');
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const warnings: string[] = [];
      // 2 requests a minute: the run waits on the budget long enough for the lock to be ended.
      const run = runSync(
        emulatorSyncOptions(emu, '', {
          streams: parseStreams('visitors'),
          place: pgPlace(target),
          from: addDays(todayUtc(), -20),
          rateLimit: parseRateLimit('2/1m'),
          maxWaitMs: 120_000,
          logger: {
            debug: () => undefined,
            info: () => undefined,
            warn: (m: string) => void warnings.push(m),
            error: (m: string) => void warnings.push(m),
            warnOnce: (_k: string, m: string) => void warnings.push(m),
          },
        }),
      );
      const lockHolder = async (): Promise<number | undefined> =>
        (
          await admin.query<{ pid: number }>(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted LIMIT 1",
          )
        ).rows[0]?.pid;
      await waitFor(async () => (await lockHolder()) !== undefined && emu.stats.requests >= 2, {
        timeoutMs: 30_000,
        what: 'the run to hold its lock and spend the first 2 requests of its budget',
      });
      await admin.query('SELECT pg_terminate_backend($1)', [await lockHolder()]);
      const summary = await run;
      expect(summary.exitCode).toBe(EXIT.dbInUse);
      expect(summary.stopReason).toBe('lock-lost');
      expect(summary.windows.deferred).toBeGreaterThan(0);
      expect(summary.error).toMatch(/lock .* was lost/);
      expect(warnings.join('\n')).toMatch(/lost its lock/);
    } finally {
      await admin.end();
    }
  }, 120_000);
});
