import { createServer, connect, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { pgWithEmulator } from '../helpers/pg-e2e.js';
import { hasPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Issue 27 item 12b: a machine that dies mid-run (power, a killed VM, a cut network) closes no
 * connection. The server must notice within the dead-client bound and free the run's advisory
 * locks, or the next night's run from another machine exits 5 for hours. A TCP proxy between the
 * CLI and the server stands for the network: it stops forwarding without closing anything, as a
 * dead machine would, and the test injects a bound of two seconds.
 */

/** A TCP proxy to `port` that can stop forwarding in both directions while keeping every socket open. */
async function blackholeProxy(
  port: number,
): Promise<{ port: number; cut: () => void; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  let dead = false;
  const server: Server = createServer((downstream) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.push(downstream, upstream);
    for (const s of [downstream, upstream]) s.on('error', () => undefined);
    downstream.on('data', (d: Buffer) => void (dead || upstream.write(d)));
    upstream.on('data', (d: Buffer) => void (dead || downstream.write(d)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    cut: () => {
      dead = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!hasPostgres())('a sync whose machine dies without closing its connections', () => {
  const h = pgWithEmulator({ seed: 2, days: 40, paths: 10 });

  const advisoryHolders = async (): Promise<number> =>
    (
      await h.admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1",
      )
    ).rows[0]?.n ?? 0;

  const runsStarted = async (): Promise<number> => {
    const exists = await h.admin.query("SELECT to_regclass('dead.sync_runs') AS t");
    if ((exists.rows[0] as { t: string | null }).t === null) return 0;
    return (
      (await h.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM dead.sync_runs')).rows[0]?.n ?? 0
    );
  };

  it('has the server free its lock within the bound, so another run can take the project', async () => {
    const proxy = await blackholeProxy(h.server.port);
    const viaProxy = new URL(h.server.url);
    viaProxy.port = String(proxy.port);
    const env = {
      MINTLIFY_API_URL: h.emu.url,
      MINTLIFY_API_KEY: h.emu.apiKey,
      MINTLIFY_PROJECT_ID: h.emu.projectId,
      MINTLIFY_ETL_PG_DEAD_CLIENT_MS: '2000',
    };
    // Two requests a minute over 30 days: the run holds its lock, waiting on the budget, for long.
    const run = runCliProcess(
      [
        'sync',
        '--db',
        viaProxy.toString(),
        '--schema',
        'dead',
        '--streams',
        'visitors',
        '--from',
        addDays(todayUtc(), -30),
        '--rate-limit',
        '2/1m',
      ],
      env,
    );
    let exited = false;
    void run.then(() => (exited = true));
    try {
      // Cut once the run has its lock and has started (its run record is in the schema).
      await waitFor(async () => (await advisoryHolders()) > 0 && (await runsStarted()) > 0, {
        what: 'the run to take its lock and start',
        timeoutMs: 60_000,
        abortIf: () => (exited ? 'the run ended' : undefined),
      });
      proxy.cut();
      // The hang guard is ten times the bound: without a bound the lock stays for hours.
      await waitFor(async () => (await advisoryHolders()) === 0, {
        what: 'the server to free the dead run’s lock',
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(exited).toBe(false);
      const next = await runCli(
        [
          'sync',
          '--db',
          h.server.url,
          '--schema',
          'dead',
          '--streams',
          'visitors',
          '--from',
          addDays(todayUtc(), -2),
        ],
        { ...env, MINTLIFY_ETL_PG_DEAD_CLIENT_MS: '' },
      );
      expect(next.code, next.stderr).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
      await run.catch(() => undefined);
      await proxy.close();
    }
  });
});
