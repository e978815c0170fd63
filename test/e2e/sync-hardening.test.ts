import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { readData, readRows, tempDbPath } from '../helpers/db.js';
import { expectedRows, minimumRequests } from '../helpers/truth.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 11, days: 40, paths: 600, latencyMs: 1 });
});
afterAll(async () => {
  await emu.close();
});

const env = (over: Record<string, string> = {}): Record<string, string> => ({
  MINTLIFY_API_URL: emu.url,
  MINTLIFY_API_KEY: emu.apiKey,
  MINTLIFY_PROJECT_ID: emu.projectId,
  // These tests pin the visitors stream's behaviour (requests per day, its tables).
  MINTLIFY_ETL_STREAMS: 'visitors',
  ...over,
});
const today = todayUtc();
const ISO_RUN = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z run=[0-9a-f-]{36} /;

interface Summary {
  runId: string;
  exitCode: number;
  requests: number;
  windows: { planned: number; loaded: number; failed: number; deferred: number; dropped: number };
  unknownProjects: string[];
  stopReason: string | null;
  budget: { spentBefore: number };
  error: string | null;
  plan?: { days: { day: string }[]; skipped: { day: string; reason: string }[] };
}

describe('a dead endpoint does not burn the hour', () => {
  it('stops after the first window, spends no budget, defers every day and exits 4 naming the URL', async () => {
    const db = tempDbPath();
    const from = addDays(today, -5);
    const dead = 'http://127.0.0.1:1';
    const r = await runCli(['sync', '--db', db, '--from', from, '--json'], env({ MINTLIFY_API_URL: dead }));
    expect(r.code).toBe(4);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.requests).toBe(0);
    expect(s.windows).toMatchObject({ planned: 5, loaded: 0, failed: 0, deferred: 5 });
    expect(s.stopReason).toBe('unreachable');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`the API at ${dead} cannot be reached`);
    // A first run that reached nothing leaves no database (nothing in it to keep).
    expect(existsSync(db)).toBe(false);
    // The next run against the right URL loads every day at the cost of the days alone.
    emu.resetStats();
    const next = await runCli(['sync', '--db', db, '--json'], env());
    expect(next.code).toBe(0);
    expect((JSON.parse(next.stdout) as Summary).budget).toMatchObject({ spentBefore: 0 });
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, dayRange(addDays(today, -30), today)));
  }, 30_000);
});

describe('a settled day is never paid for twice', () => {
  const from = addDays(today, -20);
  const to = addDays(today, -10);

  it('skips loaded settled days inside an explicit range, says so in --dry-run, and --refresh fetches them', async () => {
    const db = tempDbPath();
    const first = await runCli(['sync', '--db', db, '--from', from, '--to', to, '--json'], env());
    expect(first.code).toBe(0);
    emu.resetStats();
    const again = await runCli(['sync', '--db', db, '--from', from, '--to', to, '--json'], env());
    expect((JSON.parse(again.stdout) as Summary).requests).toBe(0);
    expect(emu.stats.requests).toBe(0);

    const dry = await runCli(['sync', '--db', db, '--from', from, '--to', to, '--dry-run', '--json'], env());
    const plan = (JSON.parse(dry.stdout) as Summary).plan;
    expect(plan?.days).toEqual([]);
    expect(plan?.skipped.map((d) => [d.day, d.reason])).toEqual(
      dayRange(from, to).map((d) => [d, 'settled']),
    );
    const text = await runCli(['sync', '--db', db, '--from', from, '--to', to, '--dry-run'], env());
    expect(text.stdout).toMatch(/skipped: 10 loaded day\(s\) already settled .*--refresh/);

    const refresh = await runCli(
      ['sync', '--db', db, '--from', from, '--to', to, '--refresh', '--json'],
      env(),
    );
    expect((JSON.parse(refresh.stdout) as Summary).requests).toBe(
      minimumRequests(emu.dataset, dayRange(from, to)),
    );
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, dayRange(from, to)));
  });
});

describe('a wrong project or URL is configuration (exit 2), not failed days', () => {
  it('loads the known project, names the unknown one, and spends one request on it', async () => {
    const db = tempDbPath();
    const from = addDays(today, -6);
    emu.resetStats();
    const r = await runCli(
      ['sync', '--db', db, '--from', from, '--concurrency', '4', '--json'],
      env({ MINTLIFY_PROJECT_ID: `${emu.projectId},proj_nope` }),
    );
    expect(r.code).toBe(2);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.unknownProjects).toEqual(['proj_nope']);
    expect(s.windows).toMatchObject({ loaded: 6, failed: 0, deferred: 0, dropped: 6 });
    expect(emu.stats.log.filter((e) => e.path.includes('proj_nope'))).toHaveLength(1);
    expect(r.stderr).toMatch(/project proj_nope was not found \(404\)/);
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, dayRange(from, today)));
    // The run is recorded for the project that exists only; the request spent on the other is in the ledger.
    const runs = await readRows<{ ids: string }>(
      db,
      "SELECT array_to_string(project_ids, ',') AS ids FROM sync_runs",
    );
    expect(runs).toEqual([{ ids: emu.projectId }]);
    const spent = await readRows<{ n: number }>(
      db,
      "SELECT count(*)::INTEGER AS n FROM api_requests WHERE project_id = 'proj_nope'",
    );
    expect(spent).toEqual([{ n: 1 }]);
  });

  it('records no run and no project for a project that does not exist (exit 2 writes nothing), though its request is in the ledger', async () => {
    const db = tempDbPath();
    const from = addDays(today, -3);
    expect((await runCli(['sync', '--db', db, '--from', from], env())).code).toBe(0);
    const before = await readRows<{ n: number }>(db, 'SELECT count(*)::INTEGER AS n FROM sync_runs');
    const r = await runCli(
      ['sync', '--db', db, '--from', from, '--refresh'],
      env({ MINTLIFY_PROJECT_ID: 'proj_wrong' }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/project proj_wrong was not found \(404\)/);
    expect(await readRows<{ n: number }>(db, 'SELECT count(*)::INTEGER AS n FROM sync_runs')).toEqual(before);
    expect(
      await readRows<{ n: number }>(
        db,
        "SELECT count(*)::INTEGER AS n FROM sync_windows WHERE project_id = 'proj_wrong'",
      ),
    ).toEqual([{ n: 0 }]);
    expect(
      await readRows<{ n: number }>(
        db,
        "SELECT count(*)::INTEGER AS n FROM api_requests WHERE project_id = 'proj_wrong'",
      ),
    ).toEqual([{ n: 1 }]);
    const status = await runCli(['status', '--db', db, '--json'], env());
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain('proj_wrong');
  });

  it('tells a wrong API URL (a /v1 too many) from a wrong project, after one request', async () => {
    const db = tempDbPath();
    emu.resetStats();
    const r = await runCli(
      ['sync', '--db', db, '--from', addDays(today, -6), '--concurrency', '4'],
      env({ MINTLIFY_API_URL: `${emu.url}/v1` }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the API URL looks wrong.*without \/v1/);
    expect(emu.stats.requests).toBe(1);
    // A first run that could load nothing leaves no database behind.
    expect(existsSync(db)).toBe(false);
  });
});

describe('a first run that reaches nothing', () => {
  it('leaves no new database behind and says so in one short line (exit 4)', async () => {
    // A port nothing listens on: bind one, note it, close it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const db = tempDbPath();
    const r = await runCli(
      ['sync', '--db', db, '--from', addDays(today, -5)],
      env({ MINTLIFY_API_URL: `http://127.0.0.1:${port}` }),
    );
    expect(r.code).toBe(4);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = (lines[0] ?? '').replace(ISO_RUN, '');
    expect(line).toMatch(
      new RegExp(
        `^sync failed: the API at http://127\\.0\\.0\\.1:${port} cannot be reached \\(connection refused\\): nothing was loaded and no database was created`,
      ),
    );
    expect(line.length).toBeLessThan(240);
    expect(line).not.toMatch(/\(.*\(.*\(/);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dirname(db)).filter((f) => f.startsWith(basename(db)))).toEqual([]);
  });
});

describe('every request ends', () => {
  let trickle: Server;
  let url: string;
  beforeAll(async () => {
    // Headers at once, then a byte now and then, for ever: no per-chunk timeout ever fires.
    trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    trickle.closeAllConnections();
    await new Promise((r) => trickle.close(r));
  });

  it('makes --max-duration a hard bound against a server that trickles its body', async () => {
    const db = tempDbPath();
    const r = await runCli(
      ['sync', '--db', db, '--from', addDays(today, -3), '--max-duration', '2s', '--json'],
      env({ MINTLIFY_API_URL: url }),
    );
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.stopReason).toBe('max-duration');
    expect(s.windows).toMatchObject({ loaded: 0, deferred: 3 });
    expect(existsSync(`${db}.lock`)).toBe(false);
  }, 30_000);

  it('makes agent wait --timeout a hard bound against the same server', async () => {
    const db = tempDbPath();
    const r = await runCli(
      ['agent', 'wait', 'job_1', '--db', db, '--timeout', '2s', '--interval', '1s'],
      env({ MINTLIFY_API_URL: url }),
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/--timeout 2s/);
  }, 30_000);
});

describe('cron logs', () => {
  it('keeps one timestamped, run-stamped summary line under --quiet when stderr is not a terminal', async () => {
    const db = tempDbPath();
    const r = await runCli(['sync', '--db', db, '--from', addDays(today, -2), '--quiet', '--json'], env());
    expect(r.code).toBe(0);
    const { runId } = JSON.parse(r.stdout) as Summary;
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(ISO_RUN);
    expect(lines[0]).toContain(`run=${runId} sync succeeded: 2/2 day(s) loaded`);
  });

  it('prints the --dry-run plan on stdout, not in the log', async () => {
    const r = await runCli(['sync', '--db', tempDbPath(), '--from', addDays(today, -2), '--dry-run'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dry run: 2 day\(s\) to fetch/);
    expect(r.stderr).toBe('');
  });
});

describe('readers during a busy sync', () => {
  let big: Emulator;
  beforeAll(async () => {
    big = await startEmulator({ seed: 5, days: 60, paths: 4_000, latencyMs: 20 });
  });
  afterAll(async () => {
    await big.close();
  });

  it('get into the database within their wait while the writer commits back to back', async () => {
    const db = tempDbPath();
    const from = addDays(today, -60);
    const bigEnv = {
      MINTLIFY_API_URL: big.url,
      MINTLIFY_API_KEY: big.apiKey,
      MINTLIFY_PROJECT_ID: big.projectId,
      MINTLIFY_ETL_STREAMS: 'visitors',
    };
    // ~960 requests paced at 100 a second: the sync lasts at least 9 s by the budget's logic, and
    // its writer commits every 200 ms meanwhile, never idle long enough to close the file.
    const sync = runCliProcess(['sync', '--db', db, '--from', from, '--rate-limit', '100/1s'], bigEnv);
    // The first days are committed once this many pages have arrived.
    while (big.stats.requests < 120) await new Promise((r) => setTimeout(r, 5));
    for (const args of [['status'], ['query', 'SELECT count(*) AS n FROM site_daily']]) {
      expect(sync.child.exitCode).toBeNull();
      const r = await runCli([...args, '--db', db]);
      expect(r.code).toBe(0);
      // It got in during the sync, not after it.
      expect(sync.child.exitCode).toBeNull();
    }
    expect((await sync).code).toBe(0);
    expect(await readData(db)).toEqual(expectedRows(big.dataset, dayRange(from, today)));
  }, 60_000);
});

describe('mintlify-etl check', () => {
  it('spends one request per project, says so, and records it in the ledger the next sync reads', async () => {
    const db = tempDbPath();
    await runCli(['sync', '--db', db, '--from', addDays(today, -2)], env());
    const count = async (): Promise<number> =>
      (await readRows<{ n: number }>(db, 'SELECT count(*)::INT AS n FROM api_requests'))[0]?.n ?? -1;
    const before = await count();
    emu.resetStats();
    const r = await runCli(['check', '--db', db], env());
    expect(r.code).toBe(0);
    expect(emu.stats.requests).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^ok {4}${emu.projectId} {2}visitors {2}answered: yesterday 250\\+ row\\(s\\) on the first page`,
      ),
    );
    expect(await count()).toBe(before + 1);
    expect(r.stdout).toContain(
      `1 request spent; budget 100/1h: ${100 - before - 1} left by this database's ledger`,
    );
  });

  it('names an unknown project (exit 2) and a refused key (exit 3)', async () => {
    const unknown = await runCli(['check', '--db', tempDbPath()], env({ MINTLIFY_PROJECT_ID: 'proj_nope' }));
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toMatch(
      /^FAIL {2}proj_nope {2}visitors {2}project proj_nope was not found \(404\)/,
    );
    const refused = await runCli(['check'], env({ MINTLIFY_API_KEY: 'mint_wrong_key_789' }));
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/the API key was refused \(401\)/);
    expect(refused.stdout + refused.stderr).not.toContain('mint_wrong_key_789');
  });

  it('checks every default stream with one request each', async () => {
    emu.resetStats();
    const r = await runCli(['check', '--db', tempDbPath(), '--json'], env({ MINTLIFY_ETL_STREAMS: '' }));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { requests: number; projects: { stream: string; ok: boolean }[] };
    expect(out.projects.map((p) => [p.stream, p.ok])).toEqual([
      ['visitors', true],
      ['views', true],
      ['searches', true],
      ['feedback', true],
      ['assistant', true],
      ['caller_stats', true],
    ]);
    expect(out.requests).toBe(6);
    expect(emu.stats.requests).toBe(6);
  });

  it('says the budget is spent, with when it frees, and exits 7 (not FAIL and 4) when nothing could be checked', async () => {
    const db = tempDbPath();
    await runCli(['sync', '--db', db, '--from', addDays(today, -2)], env());
    emu.resetStats();
    const r = await runCli(['check', '--db', db, '--rate-limit', '1/1h', '--json'], env());
    expect(r.code).toBe(7);
    expect(emu.stats.requests).toBe(0);
    const out = JSON.parse(r.stdout) as { exitCode: number; requests: number; budget: { freesAt: string } };
    expect(out).toMatchObject({ exitCode: 7, requests: 0, projects: [{ ok: false, budgetSpent: true }] });
    const text = await runCli(['check', '--db', db, '--rate-limit', '1/1h'], env());
    expect(text.code).toBe(7);
    expect(text.stdout).toMatch(
      new RegExp(
        `^WAIT {2}${emu.projectId} {2}visitors {2}not checked: the request budget 1/1h is spent \\(\\d+ in the window\\); the next request can go at \\d{4}-.*Z \\(in \\d+m`,
      ),
    );
    expect(text.stdout).not.toContain('FAIL');
    expect(text.stdout).toContain(
      `budget 1/1h: 0 left by this database's ledger, the next frees at ${out.budget.freesAt}`,
    );
  });
});

describe('a --db below a file', () => {
  it('is a usage error (exit 2) for sync and demo, with nothing started or written', async () => {
    const dir = dirname(tempDbPath());
    const file = join(dir, 'x.csv');
    writeFileSync(file, 'a,b\n');
    for (const args of [['sync'], ['demo']]) {
      const r = await runCli([...args, '--db', join(file, 'sub.duckdb')], env());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/x\.csv is a file, not a folder/);
      expect(r.stdout).toBe('');
    }
    expect(readdirSync(dir)).toEqual(['x.csv']);
  });
});
