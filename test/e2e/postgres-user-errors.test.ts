import { describe, expect, it } from 'vitest';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { pgWithEmulator } from '../helpers/pg-e2e.js';
import { hasPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Issue 27 item 20 (PostgreSQL): conditions of the user's making are one line with the fix and a
 * documented exit code, never "internal error" (exit 1): a backend ended by a DBA mid-sync, an
 * sslrootcert file that is not there, a role without USAGE on the schema, a system schema.
 */
describe.skipIf(!hasPostgres())('PostgreSQL conditions of the user’s making', () => {
  const h = pgWithEmulator({ seed: 6, days: 40, paths: 10 });

  const env = (): Record<string, string> => ({
    MINTLIFY_API_URL: h.emu.url,
    MINTLIFY_API_KEY: h.emu.apiKey,
    MINTLIFY_PROJECT_ID: h.emu.projectId,
  });
  function oneLine(r: CliResult, code: number, line: RegExp): void {
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).not.toMatch(/internal error/);
    const lines = r.stderr.trim().split('\n');
    expect(lines[lines.length - 1]).toMatch(line);
  }

  it('refuses pg_temp, any other pg_ schema and information_schema as --schema (exit 2), before connecting', async () => {
    for (const schema of ['pg_temp', 'pg_catalog', 'PG_toast', 'information_schema']) {
      const r = await runCli(['sync', '--db', h.server.url, '--schema', schema], env());
      oneLine(r, 2, new RegExp(`--schema ${schema} is a system schema of PostgreSQL.*pick another name`));
    }
  });

  it('names a schema without the tables once, with the database it looked in (exit 2)', async () => {
    const r = await runCli(['status', '--db', h.server.url, '--schema', 'mintlfy'], env());
    oneLine(
      r,
      2,
      /^mintlify-etl: no mintlify-etl tables in schema mintlfy of postgresql:\/\/[^ ]+: run `mintlify-etl sync/,
    );
    expect(r.stderr.match(/mintlfy/g)).toHaveLength(1);
  });

  it('names a missing sslrootcert file and what to do (exit 2)', async () => {
    const r = await runCli(
      ['status', '--db', `${h.server.url}?sslmode=verify-full&sslrootcert=/nowhere/root.crt`],
      env(),
    );
    oneLine(
      r,
      2,
      /the sslrootcert file \/nowhere\/root\.crt in --db cannot be read \(.*\): give the path of the server's CA certificate/,
    );
  });

  it('names the schema a role may not use (exit 2)', async () => {
    await h.admin.query('CREATE ROLE nousage LOGIN');
    await h.admin.query('CREATE SCHEMA closed');
    const u = new URL(h.server.url);
    u.username = 'nousage';
    for (const cmd of [['sync'], ['status']]) {
      const r = await runCli([...cmd, '--db', u.toString(), '--schema', 'closed'], env());
      oneLine(
        r,
        2,
        /the user lacks a right mintlify-etl needs in schema closed .*user nousage.*GRANT USAGE.* ON SCHEMA closed TO nousage/,
      );
    }
  });

  it('says the server ended the run’s connection when a DBA terminates it mid-sync, and what to do', async () => {
    const run = runCli(
      [
        'sync',
        '--db',
        h.server.url,
        '--schema',
        'ended',
        '--streams',
        'visitors',
        '--from',
        addDays(todayUtc(), -30),
        '--rate-limit',
        '3/8s',
      ],
      env(),
    );
    let exited = false;
    void run.then(() => (exited = true));
    await waitFor(
      async () => {
        const t = await h.admin.query("SELECT to_regclass('ended.api_requests') AS t");
        if ((t.rows[0] as { t: string | null }).t === null) return false;
        return ((await h.admin.query('SELECT 1 FROM ended.api_requests')).rowCount ?? 0) >= 3;
      },
      {
        what: 'the run to spend its budget and wait',
        timeoutMs: 60_000,
        abortIf: () => (exited ? 'the run ended' : undefined),
      },
    );
    // Every session of the run but its lock's: the writer and the request ledger.
    await h.admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mintlify-etl' AND pid <> pg_backend_pid()",
    );
    const r = await run;
    oneLine(r, 4, /the PostgreSQL server ended this run's connection .*administrator.*run the sync again/);
    // The run stops at the first write the server refuses: one line says it, not one per window.
    expect(r.stderr.match(/ended this run's connection/g)?.length, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/load failed|is unchanged/);
  }, 120_000);
});
