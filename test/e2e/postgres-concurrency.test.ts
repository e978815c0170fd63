import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { runCliProcess as runCli } from '../helpers/cli.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { pgData, pgRows } from '../helpers/postgres-rows.js';
import { fetchedDays } from '../helpers/postgres-truth.js';
import { expectedRows } from '../helpers/truth.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Issue 20's acceptance of what a PostgreSQL destination shares between runs, as real processes:
 * the state (windows, request ledger) lives in the schema, not on the machine; runs of one project
 * exclude each other while other projects proceed; each organization's budget counts only its own
 * requests; and the password of the URL is never shown nor stored.
 */

const today = todayUtc();

interface Summary {
  status: string;
  requests: number;
  budget: { spentBefore: number };
}

function envOf(emu: Emulator, over: Record<string, string> = {}): Record<string, string> {
  return {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_STREAMS: 'visitors',
    ...over,
  };
}

describe.skipIf(!hasPostgres())('a PostgreSQL destination shared between runs', () => {
  let server: PostgresServer;
  const emus: Emulator[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(emus.map((e) => e.close()));
    await server?.stop();
  });

  async function emulator(over: EmulatorOptions): Promise<Emulator> {
    const e = await startEmulator({ days: 20, paths: 100, latencyMs: 1, ...over });
    emus.push(e);
    return e;
  }

  const sync = (
    emu: Emulator,
    schema: string,
    args: string[],
    over: Record<string, string> = {},
    cwd?: string,
  ) =>
    runCli(['sync', '--db', server.url, '--schema', schema, ...args], envOf(emu, over), cwd ? { cwd } : {});

  it('keeps the state in the schema: a run from another folder and HOME continues and counts the first run’s requests', async () => {
    const emu = await emulator({ seed: 41 });
    const a = mkdtempSync(join(tmpdir(), 'mintlify-etl-home-a-'));
    const b = mkdtempSync(join(tmpdir(), 'mintlify-etl-home-b-'));
    const from = addDays(today, -10);
    // One request a day (100 paths): the first run loads the 6 newest days and defers 4.
    const first = await sync(
      emu,
      'state',
      ['--from', from, '--max-requests', '6', '--rate-limit', '50/1h', '--json'],
      { HOME: a },
      a,
    );
    expect(first.code, first.stderr).toBe(0);
    const s1 = JSON.parse(first.stdout) as Summary;
    expect(s1).toMatchObject({ status: 'incomplete', requests: 6 });
    expect(fetchedDays(emu, 0)).toEqual(dayRange(addDays(today, -6), today));

    const mark = emu.stats.log.length;
    const second = await sync(emu, 'state', ['--rate-limit', '50/1h', '--json'], { HOME: b }, b);
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout) as Summary;
    expect(s2.status).toBe('succeeded');
    // The budget of the first run is the second's: recorded in the schema, not on this machine.
    expect(s2.budget.spentBefore).toBe(6);
    // It fetches the 4 deferred days and the 3-day lookback, not the 3 days already settled.
    expect(fetchedDays(emu, mark)).toEqual([
      ...dayRange(from, addDays(today, -6)),
      ...dayRange(addDays(today, -3), today),
    ]);
    expect(await pgData(server.url, 'state')).toEqual(expectedRows(emu.dataset, dayRange(from, today)));

    const status = await runCli(
      ['status', '--db', server.url, '--schema', 'state', '--rate-limit', '50/1h', '--json'],
      envOf(emu, { HOME: b }),
      { cwd: b },
    );
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { budget: { spent: number } }).budget.spent).toBe(6 + s2.requests);
    // Nothing written beside either run: no lock file, no journal, no config.
    expect(readdirSync(a)).toEqual([]);
    expect(readdirSync(b)).toEqual([]);
  }, 60_000);

  it('refuses a second sync of a project being synced into the schema (exit 5, one line), lets another project sync meanwhile, and frees a killed run’s lock', async () => {
    const p = await emulator({ seed: 42, projectId: 'proj_p', apiKey: 'mint_key_p_0123456789' });
    const q = await emulator({ seed: 43, projectId: 'proj_q', apiKey: 'mint_key_q_0123456789' });
    const from = addDays(today, -10);
    const args = ['--from', from, '--concurrency', '1', '--rate-limit', '1000/1h'];
    // 3 requests, then a wait of about a minute on the budget: the run holds its lock all along.
    const running = sync(p, 'locks', ['--from', from, '--concurrency', '1', '--rate-limit', '3/1m']);
    let exited: string | undefined;
    void running.then((r) => (exited = `the first run exited (code ${r.code}): ${r.stderr}`));
    // A request sent means the run holds its lock (taken before any request).
    await waitFor(() => p.stats.requests >= 3, { what: '3 requests of P', abortIf: () => exited });

    const second = await sync(p, 'locks', args);
    expect(second.code, second.stderr).toBe(5);
    const lines = second.stderr.trim().split('\n');
    expect(lines, second.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /project proj_p is being synced into schema locks of postgresql:\/\/.*by another run/,
    );
    const other = await sync(q, 'locks', args);
    expect(other.code, other.stderr).toBe(0);
    // The first run was still going all along: the refusal and Q's run did not wait for it.
    expect(exited).toBeUndefined();

    expect(running.child.kill('SIGKILL')).toBe(true);
    expect((await running).signal).toBe('SIGKILL');
    const next = await sync(p, 'locks', args);
    expect(next.code, next.stderr).toBe(0);
    const data = await pgData(server.url, 'locks');
    const days = dayRange(from, today);
    const only = (id: string) => ({
      site: data.site.filter((r) => r.project_id === id),
      pages: data.pages.filter((r) => r.project_id === id),
    });
    expect(only('proj_p')).toEqual(expectedRows(p.dataset, days));
    expect(only('proj_q')).toEqual(expectedRows(q.dataset, days));
  }, 60_000);

  it('counts against each organization only its own requests in a shared schema, and against a --budget-scope the requests of every key that names it', async () => {
    const x = await emulator({ seed: 44, projectId: 'proj_x', apiKey: 'mint_key_x_0123456789' });
    const y = await emulator({ seed: 45, projectId: 'proj_y', apiKey: 'mint_key_y_0123456789' });
    const run = async (emu: Emulator, extra: string[] = []): Promise<Summary> => {
      const r = await sync(emu, 'orgs', [
        '--from',
        addDays(today, -5),
        '--rate-limit',
        '1000/1h',
        '--json',
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Summary;
    };
    const x1 = await run(x);
    expect(x1.budget.spentBefore).toBe(0);
    expect(x1.requests).toBe(5);
    const y1 = await run(y);
    expect(y1.budget.spentBefore).toBe(0);
    const x2 = await run(x);
    expect(x2.budget.spentBefore).toBe(x1.requests);
    const y2 = await run(y);
    expect(y2.budget.spentBefore).toBe(y1.requests);

    // One organization syncing with both keys names itself: each key's runs count the other's.
    const xa = await run(x, ['--budget-scope', 'acme']);
    expect(xa.budget.spentBefore).toBe(0);
    const ya = await run(y, ['--budget-scope', 'acme']);
    expect(ya.budget.spentBefore).toBe(xa.requests);
    const xb = await run(x, ['--budget-scope', 'acme']);
    expect(xb.budget.spentBefore).toBe(xa.requests + ya.requests);
    // The ledger holds every request, each under its scope.
    const ledger = await pgRows<{ n: number }>(server.url, 'orgs', 'SELECT count(*) AS n FROM api_requests');
    expect(ledger[0]?.n).toBe(x.stats.requests + y.stats.requests);
  }, 60_000);

  it('never shows nor stores the password of the URL or PGPASSWORD', async () => {
    const PW = 'pw-Hq72-url-secret';
    const PGPW = 'pw-Kd39-env-secret';
    const emu = await emulator({ seed: 46, projectId: 'proj_pw', apiKey: 'mint_key_pw_0123456789' });
    const u = new URL(server.url);
    u.password = PW;
    const url = u.toString();
    const env = envOf(emu, { PGPASSWORD: PGPW });
    const outputs: string[] = [];
    const cli = async (args: string[], over: Record<string, string> = {}, code = 0) => {
      const r = await runCli(args, { ...env, ...over });
      outputs.push(r.stdout, r.stderr);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      return r;
    };
    const db = ['--db', url, '--schema', 'secret'];
    await cli(['sync', ...db, '--from', addDays(today, -6), '--rate-limit', '1000/1h']);
    await cli(['sync', ...db, '--from', addDays(today, -6), '--rate-limit', '1000/1h', '--json', '-v']);
    // A run that fails (the key refused) records its error in sync_runs.
    await cli(
      ['sync', ...db, '--from', addDays(today, -8), '--refresh', '--json'],
      { MINTLIFY_API_KEY: 'mint_wrong_key_999' },
      3,
    );
    // A second run of the project while one runs: the lock message names the holder.
    // It waits on the budget after its first 2 requests, holding its lock (a scope of its own:
    // the requests of the runs above would make it wait before the first).
    const running = runCli(
      [
        'sync',
        ...db,
        '--from',
        addDays(today, -15),
        '--concurrency',
        '1',
        '--rate-limit',
        '2/1m',
        '--budget-scope',
        'holder',
      ],
      env,
    );
    let exited: string | undefined;
    void running.then((r) => (exited = `the run exited (code ${r.code}): ${r.stderr}`));
    const before = emu.stats.requests;
    await waitFor(() => emu.stats.requests >= before + 2, {
      what: '2 requests of the running sync',
      abortIf: () => exited,
    });
    await cli(['sync', ...db], {}, 5);
    running.child.kill('SIGKILL');
    const killed = await running;
    outputs.push(killed.stdout, killed.stderr);
    for (const cmd of [['status'], ['status', '--json'], ['report'], ['report', '--json']])
      await cli([...cmd, ...db]);
    expect(outputs.join('\n').length).toBeGreaterThan(0);
    for (const secret of [PW, PGPW, emu.apiKey]) expect(outputs.join('\n')).not.toContain(secret);

    // Every text-like column of every table of the schema: none holds a secret.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const cols = await client.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = 'secret' AND t.table_type = 'BASE TABLE'
           AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY')`,
      );
      expect(cols.rows.map((c) => `${c.table_name}.${c.column_name}`)).toContain('sync_runs.error');
      const hits: string[] = [];
      for (const { table_name: t, column_name: c } of cols.rows) {
        const r = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM secret.${pg.escapeIdentifier(t)}
           WHERE strpos(${pg.escapeIdentifier(c)}::text, $1) > 0 OR strpos(${pg.escapeIdentifier(c)}::text, $2) > 0
              OR strpos(${pg.escapeIdentifier(c)}::text, $3) > 0`,
          [PW, PGPW, emu.apiKey],
        );
        if ((r.rows[0]?.n ?? 0) > 0) hits.push(`${t}.${c}`);
      }
      expect(hits).toEqual([]);
      // Some text was there to search: the failed run's error.
      const errors = await client.query<{ error: string | null }>(
        "SELECT error FROM secret.sync_runs WHERE status = 'failed' AND error IS NOT NULL",
      );
      expect(errors.rows.length).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  }, 60_000);
});
