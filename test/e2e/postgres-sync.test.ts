import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { PENDING_SEQ_BASE } from '../../src/load/postgres/ledger.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { pgData, pgRows } from '../helpers/postgres-rows.js';
import { expectedRows } from '../helpers/truth.js';
import { expectPgTruth, fetchedDays, PG_STREAMS } from '../helpers/postgres-truth.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Issue 20's acceptance of the PostgreSQL destination against a real server: the CLI syncs an
 * emulator into a schema, and every table equals the emulator's ground truth, cleanly, through
 * faults, and across SIGKILLs (real processes, killed), with the request ledger in the database
 * counting every request the emulator served.
 */

const today = todayUtc();
const from = addDays(today, -30);
const RUN = ['--concurrency', '4', '--rate-limit', '100000/1h', '--max-threads', '10000'];

function envOf(emu: Emulator): Record<string, string> {
  return {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_STREAMS: PG_STREAMS,
  };
}

interface Summary {
  status: string;
  requests: number;
  windows: { loaded: number; planned: number };
  budget: { spentBefore: number };
}

describe.skipIf(!hasPostgres())('syncing into PostgreSQL with the CLI', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const args = (schema: string, extra: string[]) => [
    'sync',
    '--db',
    server.url,
    '--schema',
    schema,
    '--from',
    from,
    ...RUN,
    ...extra,
  ];
  const sync = (emu: Emulator, schema: string, extra: string[] = []) =>
    runCli(args(schema, extra), envOf(emu));
  // A run to kill: a process of its own.
  const syncProcess = (emu: Emulator, schema: string) => runCliProcess(args(schema, []), envOf(emu));

  it('loads every default and opt-in stream equal to the truth, and a second run only re-fetches the lookback', async () => {
    const emu = await startEmulator({ seed: 21, days: 40, paths: 300, latencyMs: 1 });
    try {
      const first = await sync(emu, 'clean', ['--json']);
      expect(first.code, first.stderr).toBe(0);
      expect((JSON.parse(first.stdout) as Summary).status).toBe('succeeded');
      await expectPgTruth(server.url, 'clean', emu, from, today);
      const firstRequests = emu.stats.requests;
      const ledger = await pgRows<{ n: number }>(
        server.url,
        'clean',
        'SELECT count(*) AS n FROM api_requests',
      );
      expect(ledger[0]?.n).toBe(firstRequests);

      emu.resetStats();
      const second = await sync(emu, 'clean', ['--json']);
      expect(second.code, second.stderr).toBe(0);
      const s = JSON.parse(second.stdout) as Summary;
      expect(s.status).toBe('succeeded');
      // The run reads the last 3 days of each day stream again, not the month: a few dozen requests.
      expect(emu.stats.requests).toBe(s.requests);
      expect(emu.stats.requests).toBeGreaterThan(0);
      expect(emu.stats.requests).toBeLessThan(firstRequests / 4);
      expect(s.budget.spentBefore).toBe(firstRequests);
      // Exactly the 3 lookback days of each day stream, and none of the settled ones.
      for (const endpoint of ['/visitors', '/views', '/searches', '/caller-stats', '/by-page'])
        expect(fetchedDays(emu, 0, endpoint), endpoint).toEqual(dayRange(addDays(today, -3), today));
      await expectPgTruth(server.url, 'clean', emu, from, today);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('converges on the truth through injected faults (resets, 5xx, 429s, slow answers)', async () => {
    const emu = await startEmulator({
      seed: 22,
      days: 40,
      paths: 300,
      latencyMs: 1,
      faults: 0.08,
      slowMs: 20,
      // Each 429 pauses the whole run for what it asks: a fifth of a second, waited for real.
      retryAfterSeconds: 0.2,
    });
    try {
      const r = await sync(emu, 'faults', ['--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(emu.stats.faults).toBeGreaterThan(0);
      await expectPgTruth(server.url, 'faults', emu, from, today);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('converges on the truth after four SIGKILLs mid-run, no window half-loaded, and the ledger counts every request served', async () => {
    const emu = await startEmulator({ seed: 23, days: 40, paths: 300, latencyMs: 2 });
    try {
      const visitorsLoaded = async (): Promise<number> =>
        (
          await pgRows<{ n: number }>(
            server.url,
            'kills',
            "SELECT count(*)::int AS n FROM sync_windows WHERE stream = 'visitors'",
          ).catch(() => [{ n: 0 }])
        )[0]?.n ?? 0;
      const ks = [10, 40, 25, 60];
      for (const [i, k] of ks.entries()) {
        const before = emu.stats.requests;
        const run = syncProcess(emu, 'kills');
        let exited: string | undefined;
        void run.then((r) => (exited = `the run exited by itself (code ${r.code}): ${r.stderr}`));
        // The last kill comes once some visitors day is committed (on a loaded machine the others
        // may all land before the first commit): the check below then has windows to look at.
        const last = i === ks.length - 1;
        await waitFor(
          async () => emu.stats.requests - before >= k && (!last || (await visitorsLoaded()) > 0),
          {
            what: `${k} requests of this run${last ? ' and a committed visitors day' : ''}`,
            intervalMs: 2,
            abortIf: () => exited,
          },
        );
        expect(run.child.kill('SIGKILL')).toBe(true);
        expect((await run).signal).toBe('SIGKILL');
      }
      const served = emu.stats.requests;
      const rows = await pgRows<{ runs: number; total: number; pending: number }>(
        server.url,
        'kills',
        `SELECT count(DISTINCT run_id) AS runs, count(*) AS total,
                count(*) FILTER (WHERE seq >= ${PENDING_SEQ_BASE}) AS pending FROM api_requests`,
      );
      const ledger = rows[0]!;
      expect(ledger.runs).toBe(4);
      // Each row is written before its request goes: every served request has one. A row still
      // pending is a request granted (or answered) when the kill came, at most --concurrency a run.
      expect(ledger.total).toBeGreaterThanOrEqual(served);
      expect(ledger.total - served).toBeLessThanOrEqual(ledger.pending);
      expect(ledger.pending).toBeLessThanOrEqual(4 * 4);

      // No window half-loaded: the days the killed runs recorded loaded hold exactly the truth's
      // rows, and no day holds rows without its window.
      const loaded = (
        await pgRows<{ day: string }>(
          server.url,
          'kills',
          "SELECT window_start::date::text AS day FROM sync_windows WHERE stream = 'visitors' ORDER BY 1",
        )
      ).map((r) => r.day);
      expect(loaded.length).toBeGreaterThan(0);
      expect(await pgData(server.url, 'kills')).toEqual(expectedRows(emu.dataset, loaded));
      const final = await sync(emu, 'kills', ['--json']);
      expect(final.code, final.stderr).toBe(0);
      await expectPgTruth(server.url, 'kills', emu, from, today);
      const all = await pgRows<{ n: number }>(server.url, 'kills', 'SELECT count(*) AS n FROM api_requests');
      // The final run, not killed, adds exactly a row per request it sent.
      expect(all[0]!.n).toBe(ledger.total + (emu.stats.requests - served));
      const runs = await pgRows<{ status: string }>(
        server.url,
        'kills',
        'SELECT status FROM sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
    } finally {
      await emu.close();
    }
  }, 120_000);
});
