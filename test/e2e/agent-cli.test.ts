import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli, runCliProcess, type CliResult } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';

// Three emulators: one whose jobs finish on the 3rd poll, one whose jobs never finish (timeout,
// Ctrl-C), and one that must never see a request (usage errors are caught before any).
let emu: Emulator;
let never: Emulator;
let quiet: Emulator;
beforeAll(async () => {
  [emu, never, quiet] = await Promise.all([
    startEmulator({ pollsToFinish: 3 }),
    startEmulator({ pollsToFinish: 1_000_000 }),
    startEmulator({}),
  ]);
});
afterAll(async () => {
  await Promise.all([emu.close(), never.close(), quiet.close()]);
});

const envOf = (e: Emulator): Record<string, string> => ({
  MINTLIFY_API_URL: e.url,
  MINTLIFY_API_KEY: e.apiKey,
  MINTLIFY_PROJECT_ID: e.projectId,
});

function jobIdOf(r: CliResult): string {
  const id = /job (job_\w+) created/.exec(r.stderr)?.[1];
  if (id === undefined) throw new Error(`no job id in stderr: ${r.stderr}`);
  return id;
}

async function jobOnService(e: Emulator, id: string): Promise<{ status: string; prLink: string | null }> {
  const res = await fetch(`${e.url}/v2/agent/${e.projectId}/job/${id}`, {
    headers: { authorization: `Bearer ${e.apiKey}` },
  });
  return (await res.json()) as { status: string; prLink: string | null };
}

describe.concurrent('mintlify-etl agent as a process', () => {
  it('create --wait prints exactly the pull-request URL on stdout and records it', async ({ expect }) => {
    const db = tempDbPath();
    const r = await runCli(
      ['agent', 'create', '--prompt', 'Document the webhooks', '--wait', '--interval', '50ms', '--db', db],
      envOf(emu),
    );
    expect(r.code).toBe(0);
    const id = jobIdOf(r);
    const onService = await jobOnService(emu, id);
    expect(onService.status).toBe('completed');
    expect(onService.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    expect(r.stdout).toBe(`${onService.prLink}\n`);
    expect(r.stderr).toMatch(new RegExp(`job ${id}: active -> completed \\(\\d+ms\\)`));
    expect(r.stdout + r.stderr).not.toContain(emu.apiKey);
    const rows = await readRows<Record<string, unknown>>(
      db,
      'SELECT job_id, status, prompt, pr_link FROM agent_jobs',
    );
    expect(rows).toEqual([
      { job_id: id, status: 'completed', prompt: 'Document the webhooks', pr_link: onService.prLink },
    ]);
  });

  it('create --wait for a job that changes no files prints nothing on stdout, says so on stderr, exits 0', async ({
    expect,
  }) => {
    const db = tempDbPath();
    const r = await runCli(
      [
        'agent',
        'create',
        '--prompt',
        'Fix typos if any, else no changes',
        '--wait',
        '--interval',
        '20ms',
        '--db',
        db,
      ],
      envOf(emu),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`job ${jobIdOf(r)} completed: no files changed, no pull request`);
  });

  it('create --wait --json for a job that fails prints the job object and exits 4', async ({ expect }) => {
    const db = tempDbPath();
    const r = await runCli(
      ['agent', 'create', '--prompt', 'This will fail', '--wait', '--interval', '20ms', '--db', db, '--json'],
      envOf(emu),
    );
    expect(r.code).toBe(4);
    const job = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(job).toMatchObject({ id: jobIdOf(r), status: 'failed', prLink: null });
    expect(r.stderr).toContain(`job ${jobIdOf(r)} failed: no pull request`);
    expect(r.stdout + r.stderr).not.toContain(emu.apiKey);
  });

  it('gives up at --timeout with exit 4, saying the job still runs and how to resume', async ({ expect }) => {
    const db = tempDbPath();
    const r = await runCli(
      [
        'agent',
        'create',
        '--prompt',
        'Slow',
        '--wait',
        '--interval',
        '20ms',
        '--timeout',
        '300ms',
        '--db',
        db,
      ],
      envOf(never),
    );
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    const id = jobIdOf(r);
    expect(r.stderr).toMatch(
      new RegExp(
        `job ${id} is still active after \\d+ms \\(--timeout 300ms\\); it keeps running on the service: resume with \`mintlify-etl agent wait ${id} --project ${never.projectId} --db ${db}\``,
      ),
    );
    expect(await readRows(db, 'SELECT status FROM agent_jobs')).toEqual([{ status: 'active' }]);
  });

  it('create without --wait prints the job id; agent wait on it stops politely on Ctrl-C with exit 130', async ({
    expect,
  }) => {
    const db = tempDbPath();
    const created = await runCli(['agent', 'create', '--prompt', 'Slow too', '--db', db], envOf(never));
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    expect(id).toBe(jobIdOf(created));
    const run = runCliProcess(['agent', 'wait', id, '--interval', '50ms', '--db', db], envOf(never));
    await new Promise<void>((resolve) => {
      let seen = '';
      run.child.stderr?.on('data', (d: string) => {
        seen += d;
        if (seen.includes(`job ${id}: active`)) resolve();
      });
    });
    run.child.kill('SIGINT');
    const r = await run;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `stopped waiting for job ${id} (Ctrl-C); it keeps running on the service: resume with \`mintlify-etl agent wait ${id} --project ${never.projectId} --db ${db}\``,
    );
    const rows = await readRows(db, 'SELECT job_id, status, prompt FROM agent_jobs');
    expect(rows).toEqual([{ job_id: id, status: 'active', prompt: 'Slow too' }]);
  });

  it('refuses an unknown job id with exit 2 and creates no database', async ({ expect }) => {
    const db = tempDbPath();
    const r = await runCli(['agent', 'get', 'job_nope', '--db', db], envOf(emu));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`mintlify-etl: job job_nope not found in project ${emu.projectId}\n`);
    expect(existsSync(db)).toBe(false);
  });

  it('waits for an unknown job with exit 2 and no "resume" hint: there is nothing to resume', async ({
    expect,
  }) => {
    const db = tempDbPath();
    const r = await runCli(['agent', 'wait', 'job_nope', '--interval', '20ms', '--db', db], envOf(emu));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`mintlify-etl: job job_nope not found in project ${emu.projectId}\n`);
  });

  it('exits 3 when the key is refused, creating no database and showing no key', async ({ expect }) => {
    const db = tempDbPath();
    const key = 'mint_not_the_right_key_12345';
    const r = await runCli(['agent', 'create', '--prompt', 'x', '--wait', '--db', db], {
      ...envOf(emu),
      MINTLIFY_API_KEY: key,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the API key was refused \(401\)/);
    expect(r.stdout + r.stderr).not.toContain(key);
    expect(existsSync(db)).toBe(false);
  });
});

describe.concurrent('bad usage: exit 2, one line, no request, no database file', () => {
  it('refuses a --db that is a folder before creating any job', async ({ expect }) => {
    const folder = dirname(tempDbPath());
    const r = await runCli(['agent', 'create', '--prompt', 'x', '--db', folder], envOf(quiet));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `mintlify-etl: --db ${folder} is a folder, not a database file: point --db (or MINTLIFY_ETL_DB) at a file, e.g. ${join(folder, 'analytics.duckdb')}\n`,
    );
    expect(quiet.stats.requests).toBe(0);
  });

  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['an empty prompt', ['agent', 'create', '--prompt', '', '--wait'], {}, /--prompt is empty/],
    ['a blank prompt', ['agent', 'message', 'job_1', '--prompt', ' \n '], {}, /--prompt is empty/],
    [
      'a prompt over 10,000 characters',
      ['agent', 'create', '--prompt', 'x'.repeat(10_001)],
      {},
      /--prompt is 10,001 characters, more than the 10,000 allowed/,
    ],
    [
      'several projects',
      ['agent', 'get', 'job_1'],
      { MINTLIFY_PROJECT_ID: 'a,b' },
      /exactly one project, got 2 \(a, b\)/,
    ],
  ];
  it.for(cases)('refuses %s', async ([, args, env, pattern], { expect }) => {
    const db = tempDbPath();
    const r = await runCli([...args, '--db', db], { ...envOf(quiet), ...env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).toBe('');
    expect(existsSync(db)).toBe(false);
    expect(quiet.stats.requests).toBe(0);
  });
});
