import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { readData, readRows, tempDbPath } from '../helpers/db.js';
import { expectedRows, minimumRequests } from '../helpers/truth.js';
import { minimum, sorted, tables, truth } from '../helpers/streams-truth.js';
import { DEFAULT_STREAMS } from '../../src/streams/index.js';
import { waitFor } from '../helpers/wait.js';
import {
  feedbackRows,
  feedbackTruth,
  messageRows,
  messagesTruth,
  turnRows,
  turnsTruth,
} from '../helpers/events-truth.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 3, days: 40, paths: 800, latencyMs: 2 });
});
afterAll(async () => {
  await emu.close();
});

const env = (): Record<string, string> => ({
  MINTLIFY_API_URL: emu.url,
  MINTLIFY_API_KEY: emu.apiKey,
  MINTLIFY_PROJECT_ID: emu.projectId,
  // These tests pin the visitors stream's behaviour (requests per day, its tables).
  MINTLIFY_ETL_STREAMS: 'visitors',
});

const today = todayUtc();

describe('mintlify-etl sync as a process', () => {
  it('prints a JSON summary on stdout and logs on stderr', async () => {
    const db = tempDbPath();
    const r = await runCli(['sync', '--db', db, '--from', addDays(today, -5), '--json'], env());
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { status: string; windows: { loaded: number } };
    expect(summary.status).toBe('succeeded');
    expect(summary.windows.loaded).toBe(5);
    expect(r.stderr).toMatch(/sync succeeded: 5\/5 day/);
    // The key is in no output and nowhere in the database file (WAL checkpointed on close).
    expect(r.stdout + r.stderr).not.toContain(emu.apiKey);
    expect(readFileSync(db).includes(Buffer.from(emu.apiKey))).toBe(false);
  });

  it('converges on the truth after being killed with SIGKILL five times, each after observed requests', async () => {
    // Its own emulator with 150 days (about 430 requests): room for every kill to land mid-work.
    const big = await startEmulator({ seed: 3, days: 150, paths: 800, latencyMs: 2 });
    try {
      const db = tempDbPath();
      const from = addDays(today, -150);
      const days = dayRange(from, today);
      const need = minimumRequests(big.dataset, days);
      const bigEnv = { ...env(), MINTLIFY_API_URL: big.url };
      const args = ['sync', '--db', db, '--from', from, '--concurrency', '4', '--rate-limit', '100000/1h'];
      // Requests each run must have sent when it is killed. Together they are about half the work,
      // so even with requests sent between the observation and the kill, every run has more to do.
      const ks = [10, 40, 90, 25, 60];
      expect(ks.reduce((a, b) => a + b, 0) * 1.8).toBeLessThan(need);
      for (const k of ks) {
        const before = big.stats.requests;
        const run = runCliProcess(args, bigEnv);
        let exited: string | undefined;
        void run.then((r) => (exited = `the run exited by itself (code ${r.code}, signal ${r.signal})`));
        await waitFor(() => big.stats.requests - before >= k, {
          what: `${k} requests of this run`,
          intervalMs: 2,
          abortIf: () => exited,
        });
        expect(run.child.kill('SIGKILL')).toBe(true);
        const res = await run;
        // Killed mid-work: by the signal, not finished (a finished run exits 0 on its own).
        expect(res.signal, `k=${k}: ${res.stderr}`).toBe('SIGKILL');
        expect(res.code).toBeNull();
        expect(big.stats.requests - before).toBeGreaterThanOrEqual(k);
      }
      const final = await runCli(args, bigEnv);
      expect(final.code, final.stderr).toBe(0);
      const got = await readData(db);
      expect(got).toEqual(expectedRows(big.dataset, days));
    } finally {
      await big.close();
    }
  }, 120_000);
});

describe('every default stream across kills', () => {
  it("converges on every stream's truth after three SIGKILLs, each after observed requests", async () => {
    const big = await startEmulator({ seed: 11, days: 60, paths: 600, latencyMs: 2 });
    try {
      const db = tempDbPath();
      const from = addDays(today, -60);
      const days = dayRange(from, today);
      // The kills together stop at about half the work, so every run still has some left.
      expect(minimum(big.dataset, days)).toBeGreaterThan(1.8 * (20 + 60 + 120));
      const allEnv = {
        ...env(),
        MINTLIFY_API_URL: big.url,
        MINTLIFY_ETL_STREAMS: [...DEFAULT_STREAMS, 'assistant_threads'].join(','),
      };
      const args = ['sync', '--db', db, '--from', from, '--concurrency', '4', '--rate-limit', '100000/1h'];
      for (const k of [20, 60, 120]) {
        const before = big.stats.requests;
        const run = runCliProcess(args, allEnv);
        let exited: string | undefined;
        void run.then((r) => (exited = `the run exited by itself (code ${r.code}, signal ${r.signal})`));
        await waitFor(() => big.stats.requests - before >= k, {
          what: `${k} requests of this run`,
          intervalMs: 2,
          abortIf: () => exited,
        });
        expect(run.child.kill('SIGKILL')).toBe(true);
        expect((await run).signal).toBe('SIGKILL');
      }
      const final = await runCli(args, allEnv);
      expect(final.code, final.stderr).toBe(0);
      expect(await readData(db)).toEqual(expectedRows(big.dataset, days));
      expect(sorted(await tables(db))).toEqual(truth(big.dataset, big.projectId, days));
      // The event streams: each table equals the API's rows over the ranges its windows cover.
      const starts = await readRows<{ stream: string; start: string }>(
        db,
        `SELECT stream, strftime(min(window_start), '%Y-%m-%d') AS start FROM sync_windows
         WHERE stream IN ('feedback', 'assistant') GROUP BY stream`,
      );
      const start = (s: string): string => starts.find((r) => r.stream === s)?.start ?? from;
      expect(await feedbackRows(db)).toEqual(
        feedbackTruth(big.dataset, big.projectId, start('feedback'), today),
      );
      expect(await turnRows(db)).toEqual(turnsTruth(big.dataset, big.projectId, start('assistant'), today));
      const threads = (
        await readRows<{ id: string }>(db, 'SELECT thread_id AS id FROM assistant_threads')
      ).map((r) => r.id);
      expect(threads.length).toBeGreaterThan(0);
      expect(await messageRows(db)).toEqual(messagesTruth(big.dataset, big.projectId, threads));
    } finally {
      await big.close();
    }
  }, 120_000);
});

describe('the request budget across a kill', () => {
  it("counts every request a SIGKILLed run sent in the next run's budget", async () => {
    const db = tempDbPath();
    const from = addDays(today, -40);
    emu.resetStats();
    const run = runCliProcess(
      ['sync', '--db', db, '--from', from, '--concurrency', '4', '--rate-limit', '1000/1h'],
      env(),
    );
    let exited: string | undefined;
    void run.then((r) => (exited = `the run exited by itself (code ${r.code})`));
    await waitFor(() => emu.stats.requests >= 25, {
      what: '25 requests',
      intervalMs: 2,
      abortIf: () => exited,
    });
    run.child.kill('SIGKILL');
    expect((await run).signal).toBe('SIGKILL');
    const sent = emu.stats.requests;
    const next = await runCli(
      ['sync', '--db', db, '--from', from, '--rate-limit', '1000/1h', '--max-requests', '1', '--json'],
      env(),
    );
    const summary = JSON.parse(next.stdout) as { budget: { spentBefore: number } };
    // Granted but not yet arrived when the kill came: counted too, which only errs on the safe side.
    expect(summary.budget.spentBefore).toBeGreaterThanOrEqual(sent);
    expect(summary.budget.spentBefore).toBeLessThanOrEqual(sent + 4);
    expect(existsSync(`${db}.requests.jsonl`)).toBe(false);
    // The killed run's record says what it spent and loaded, not where its last update left it.
    const [killed] = await readRows<{ requests: number; windows_loaded: number; days: bigint }>(
      db,
      `SELECT requests, windows_loaded, (SELECT count(*) FROM sync_windows w WHERE w.run_id = r.run_id) AS days
       FROM sync_runs r WHERE status = 'failed'`,
    );
    expect(killed?.requests).toBe(summary.budget.spentBefore);
    // The second run may have loaded (and so re-owned) one day since: at most one fewer now.
    expect(killed?.windows_loaded).toBeGreaterThanOrEqual(Number(killed?.days));
    expect(killed?.windows_loaded).toBeLessThanOrEqual(Number(killed?.days) + 1);
  }, 60_000);
});

describe('sharing the database while a sync waits on the budget', () => {
  it('lets a reader query the file between loads, and the sync still finishes with the truth', async () => {
    const db = tempDbPath();
    const from = addDays(today, -12);
    const before = emu.stats.requests;
    // 12 days need 33 requests; 8 per 2 s makes the run wait on the budget four times.
    const sync = runCliProcess(
      ['sync', '--db', db, '--from', from, '--rate-limit', '8/2s', '--concurrency', '2'],
      env(),
    );
    let syncExited: string | undefined;
    void sync.then((r) => (syncExited = `the sync exited (code ${r.code}) before a reader saw a day`));
    // Once the first request arrives the sync has created the database. From then on readers
    // query the file until one gets in between loads (no wait) and sees a committed day. A
    // reader that comes during a load waits for the writer's pause, says so, and succeeds too.
    await waitFor(() => emu.stats.requests > before, {
      what: 'the first request of the sync',
      abortIf: () => syncExited,
    });
    const waitNotice = `mintlify-etl: waiting for the database: process ${sync.child.pid} (a sync?) is writing to it and pauses every few seconds; giving up after 15s\n`;
    const queries: { code: number | null; stderr: string; days: number; syncRunning: boolean }[] = [];
    const between = await waitFor(
      async () => {
        const q = await runCli([
          'query',
          '--db',
          db,
          '--format',
          'csv',
          'SELECT count(*) AS days FROM site_daily',
        ]);
        const days = Number(q.stdout.trim().split('\n')[1]);
        const seen = { code: q.code, stderr: q.stderr, days, syncRunning: syncExited === undefined };
        queries.push(seen);
        return q.code === 0 && q.stderr === '' && days > 0 ? seen : undefined;
      },
      {
        what: 'a reader between loads to see a day',
        intervalMs: 20,
        timeoutMs: 45_000,
        abortIf: () => syncExited,
      },
    );
    const done = await sync;
    // That reader got in while the sync was still running (waiting on the budget).
    expect(between.syncRunning).toBe(true);
    expect(between.days).toBeGreaterThan(0);
    expect(queries.filter((q) => q.code !== 0 || (q.stderr !== '' && q.stderr !== waitNotice))).toEqual([]);
    expect(done.code).toBe(0);
    expect(await readData(db)).toEqual(expectedRows(emu.dataset, dayRange(from, today)));
  }, 60_000);
});

describe('interrupting a sync', () => {
  it('stops on SIGINT after loading the fetched days, exits 130, and the next run finishes the rest', async () => {
    const db = tempDbPath();
    const from = addDays(today, -10);
    const before = emu.stats.requests;
    const sync = runCliProcess(['sync', '--db', db, '--from', from, '--rate-limit', '6/3s', '--json'], env());
    // 27 requests are needed; once the first window's 6 arrived, the run waits on the budget.
    let exited: string | undefined;
    void sync.then((r) => (exited = `the sync exited (code ${r.code}) before SIGINT`));
    await waitFor(() => emu.stats.requests - before >= 6, {
      what: '6 requests of the sync',
      intervalMs: 5,
      abortIf: () => exited,
    });
    sync.child.kill('SIGINT');
    const r = await sync;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping after the days already fetched');
    const summary = JSON.parse(r.stdout) as {
      status: string;
      stopReason: string;
      windows: { loaded: number; deferred: number };
    };
    expect(summary).toMatchObject({ status: 'incomplete', stopReason: 'interrupted' });
    expect(summary.windows.loaded + summary.windows.deferred).toBe(10);
    expect(summary.windows.deferred).toBeGreaterThan(0);
    const [run] = await readRows<{ status: string }>(db, 'SELECT status FROM sync_runs');
    expect(run?.status).toBe('incomplete');
    const next = await runCli(['sync', '--db', db, '--rate-limit', '1000/1s'], env());
    expect(next.code).toBe(0);
    // Whether a day was committed before the signal depends on timing: with none, the next run
    // starts with the first run's 30 days (which hold these 10). Either way these 10 are whole.
    const got = await readData(db);
    const inRange = {
      site: got.site.filter((r) => r.day >= from),
      pages: got.pages.filter((r) => r.day >= from),
    };
    expect(inRange).toEqual(expectedRows(emu.dataset, dayRange(from, today)));
  }, 60_000);
});

describe('bad input: one clear line, the documented exit code, nothing written, no key', () => {
  const key = (): string => emu.apiKey;

  async function expectUsage(
    args: string[],
    envOver: Record<string, string>,
    code: number,
    pattern: RegExp,
  ): Promise<void> {
    const db = join(dirname(tempDbPath()), 'never.duckdb');
    const r = await runCli(['sync', '--db', db, ...args], { ...env(), ...envOver });
    expect(r.code).toBe(code);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr + r.stdout).not.toContain(key());
    expect(existsSync(db)).toBe(false);
  }

  it('refuses an impossible date with exit 2', () =>
    expectUsage(['--from', '2026-02-30'], {}, 2, /--from "2026-02-30" is not a real calendar day/));
  it('refuses --from on or after --to with exit 2', () =>
    expectUsage(['--from', '2026-03-02', '--to', '2026-03-01'], {}, 2, /must be before --to/));
  it('refuses a bad --rate-limit with exit 2', () =>
    expectUsage(['--rate-limit', '100/hour'], {}, 2, /--rate-limit "100\/hour" is not N\/DURATION/));
  it('refuses a --rate-limit window under 1 ms with exit 2, creating nothing', () =>
    expectUsage(['--rate-limit', '100/0.4ms'], {}, 2, /the window must be at least 1ms/));
  it('refuses a missing key with exit 2', () =>
    expectUsage([], { MINTLIFY_API_KEY: '' }, 2, /no API key: set MINTLIFY_API_KEY/));
  it('refuses an assistant key with exit 2', () =>
    expectUsage([], { MINTLIFY_API_KEY: 'mint_dsc_abcdef' }, 2, /not an admin key/));
  it('refuses a key with an invisible character with exit 2, before any request', () =>
    expectUsage(
      [],
      { MINTLIFY_API_KEY: 'mint_abc\u200bdef' },
      2,
      /contains a character an API key cannot have/,
    ));
  it('reports a wrong key (401) with exit 3 and leaves no database', () =>
    expectUsage(
      ['--from', addDays(today, -2)],
      { MINTLIFY_API_KEY: 'mint_wrong_key_123' },
      3,
      /check MINTLIFY_API_KEY/,
    ));

  it('keeps a first-run database that already holds loaded days when the key is refused midway (exit 3)', async () => {
    // A proxy that passes five requests to the emulator, then answers 401 as a revoked key would.
    let passed = 0;
    const proxy = createServer((req, res) => {
      if (passed >= 5) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Invalid API key' }));
        return;
      }
      passed++;
      const up = httpRequest(`${emu.url}${req.url ?? ''}`, { headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.end();
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const port = (proxy.address() as AddressInfo).port;
      const db = tempDbPath();
      const r = await runCli(['sync', '--db', db, '--from', addDays(today, -20), '--concurrency', '1'], {
        ...env(),
        MINTLIFY_API_URL: `http://127.0.0.1:${port}`,
      });
      expect(r.code).toBe(3);
      expect(existsSync(db)).toBe(true);
      const days = await readRows<{ n: bigint }>(db, 'SELECT count(*) AS n FROM site_daily');
      expect(Number(days[0]?.n)).toBeGreaterThan(0);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('refuses a --db that is a folder with exit 2, leaving nothing beside it', async () => {
    const folder = join(dirname(tempDbPath()), 'a-folder');
    mkdirSync(folder);
    const r = await runCli(['sync', '--db', folder, '--from', addDays(today, -2)], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--db .*a-folder is a folder, not a database file/);
    expect(readdirSync(dirname(folder))).toEqual(['a-folder']);
    expect(readdirSync(folder)).toEqual([]);
  });

  it.each([
    ['a CSV file', 'visits.csv', 'day,total\n2026-01-01,3\n'],
    ['a JSON file', 'visits.json', '{"day":"2026-01-01"}\n'],
    ['a Parquet-named file', 'visits.parquet', 'PAR1 not really\n'],
    ['a SQLite database', 'analytics.sqlite', 'SQLite format 3\u0000'],
    ['an empty file', 'empty.duckdb', ''],
  ])(
    'refuses a --db that is %s (not a DuckDB database) with exit 2, leaving it untouched',
    async (_what, name, text) => {
      const db = join(dirname(tempDbPath()), name);
      writeFileSync(db, text);
      const r = await runCli(['sync', '--db', db, '--from', addDays(today, -2)], env());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/exists but is not a DuckDB database/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(db, 'utf8')).toBe(text);
      expect(readdirSync(dirname(db))).toEqual([name]);
    },
  );

  it('creates a DuckDB database at a new --db named .sqlite without fetching any extension', async () => {
    const db = join(dirname(tempDbPath()), 'new.sqlite');
    const r = await runCli(['sync', '--db', db, '--from', addDays(today, -2)], env());
    expect(r.stderr).not.toMatch(/extension/i);
    expect(r.code).toBe(0);
    expect(readFileSync(db).toString('latin1', 8, 12)).toBe('DUCK');
  });

  it('answers --json with an error object on stdout when the run fails', async () => {
    const db = join(dirname(tempDbPath()), 'never.duckdb');
    const r = await runCli(['sync', '--db', db, '--json', '--from', addDays(today, -2)], {
      ...env(),
      MINTLIFY_API_KEY: 'mint_wrong_key_456',
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', exitCode: 3, error: { code: 'E_AUTH' } });
    expect(r.stdout + r.stderr).not.toContain('mint_wrong_key_456');
  });

  it('refuses a second writer on the same database with exit 5 naming the holder pid', async () => {
    const db = tempDbPath();
    // A lock held by a live process (this test runner) is what a running sync leaves.
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    const r = await runCli(['sync', '--db', db], env());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`process ${process.pid}`);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('accepts the key from --api-key-file and never prints it', async () => {
    const db = tempDbPath();
    const file = join(dirname(db), 'key');
    writeFileSync(file, `${emu.apiKey}\n`);
    const r = await runCli(
      ['sync', '--db', db, '--from', addDays(today, -2), '--api-key-file', file, '--json'],
      {
        ...env(),
        MINTLIFY_API_KEY: '',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(emu.apiKey);
  });
});
