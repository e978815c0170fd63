import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCliProcess as runCli, type CliResult } from '../helpers/cli.js';
import { pgWithEmulator } from '../helpers/pg-e2e.js';
import { hasPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Issue 27 item 6: a sync that must recreate the views (a new version) while a dashboard's
 * transaction reads one never waits for it, and never makes other readers queue behind a change
 * they did not ask for: it loads the data, keeps the views in place, and says which session held
 * them; the next sync updates them. Every other lock wait of a run is bounded too.
 */
describe.skipIf(!hasPostgres())('a sync while a BI transaction reads a view', () => {
  const h = pgWithEmulator({ seed: 8, days: 10, paths: 10 });
  const from = addDays(todayUtc(), -4);

  const sync = (args: string[] = []) =>
    runCli(['sync', '--db', h.server.url, '--schema', 'busy', '--streams', 'visitors', ...args], {
      MINTLIFY_API_URL: h.emu.url,
      MINTLIFY_API_KEY: h.emu.apiKey,
      MINTLIFY_PROJECT_ID: h.emu.projectId,
    });
  /** The run's result, or a failure once it has hung far past any bound the run has (a hang guard). */
  async function finished(run: ReturnType<typeof runCli>): Promise<CliResult> {
    let result: CliResult | undefined;
    void run.then((r) => (result = r));
    try {
      return await waitFor(() => result, { what: 'the sync to end', timeoutMs: 60_000, intervalMs: 50 });
    } finally {
      if (result === undefined) run.child.kill('SIGKILL');
    }
  }
  const tag = async (): Promise<string | null> =>
    (
      await h.admin.query<{ c: string | null }>(
        "SELECT obj_description('busy.v_coverage'::regclass, 'pg_class') AS c",
      )
    ).rows[0]?.c ?? null;

  it('loads the data without waiting, keeps the views for the reader and names it, and updates them on the next run', async () => {
    const first = await sync(['--from', from, '--to', addDays(from, 2)]);
    expect(first.code, first.stderr).toBe(0);
    // As after an upgrade: the views in the schema are not this version's.
    await h.admin.query("COMMENT ON VIEW busy.v_coverage IS 'mintlify-etl views sha256:older'");
    const reader = new pg.Client({ connectionString: h.server.url, application_name: 'dashboard' });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM busy.v_site_daily');
      const pid = (await reader.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;

      const r = await finished(sync(['--from', from]));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `the views of schema busy were not updated to this version of mintlify-etl: server process ${pid} \\("dashboard"\\) reading v_site_daily.*the data is loaded.*the next sync updates them`,
        ),
      );
      const days = await h.admin.query('SELECT day FROM busy.site_daily');
      expect(days.rowCount).toBe(4);
      expect(await tag()).toBe('mintlify-etl views sha256:older');
      // The reader's transaction was never disturbed.
      expect((await reader.query('SELECT count(*)::int AS n FROM busy.v_site_daily')).rows[0]).toEqual({
        n: 4,
      });
    } finally {
      await reader.query('COMMIT').catch(() => undefined);
      await reader.end();
    }
    const after = await finished(sync(['--from', from]));
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toMatch(/views of schema busy were not updated/);
    expect(await tag()).toMatch(/^mintlify-etl views sha256:[0-9a-f]{64}$/);
  });

  it('bounds the wait on a table another session locks: the migration stops with exit 5 naming the holder, nothing changed', async () => {
    // A schema at version 7 of 8: the migration to 8 must alter api_requests, which a DBA holds.
    await h.admin.query('DELETE FROM busy.schema_migrations WHERE version = 8');
    const holder = new pg.Client({ connectionString: h.server.url, application_name: 'dba' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE busy.api_requests IN ACCESS SHARE MODE');
      const r = await finished(sync(['--from', from]));
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /cannot upgrade schema busy .*008_budget_scope.*server process \d+ \("dba"\) reading api_requests.*nothing was changed/,
      );
      const v = await h.admin.query('SELECT 1 FROM busy.schema_migrations WHERE version = 8');
      expect(v.rowCount).toBe(0);
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end();
    }
    const again = await finished(sync(['--from', from]));
    expect(again.code, again.stderr).toBe(0);
  });

  it('bounds the wait on a data table another session locks: exit 5 naming the holder, the days left for the next run', async () => {
    expect((await finished(sync(['--from', from]))).code).toBe(0);
    const holder = new pg.Client({ connectionString: h.server.url, application_name: 'dba' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE busy.site_daily IN ACCESS EXCLUSIVE MODE');
      const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const run = runCli(
        [
          'sync',
          '--db',
          h.server.url,
          '--schema',
          'busy',
          '--streams',
          'visitors',
          '--from',
          from,
          '--refresh',
        ],
        {
          MINTLIFY_API_URL: h.emu.url,
          MINTLIFY_API_KEY: h.emu.apiKey,
          MINTLIFY_PROJECT_ID: h.emu.projectId,
          // The session's lock_timeout, short for the test (30 s otherwise).
          MINTLIFY_ETL_PG_LOCK_TIMEOUT_MS: '2000',
        },
      );
      const r = await finished(run);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(
        new RegExp(`site_daily of schema busy is locked by server process ${pid} \\("dba"\\).*waited 2s`),
      );
      expect(r.stderr).not.toMatch(/internal error/);
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end();
    }
    const again = await finished(sync(['--from', from]));
    expect(again.code, again.stderr).toBe(0);
  });
});
