import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { addDays } from '../../src/util/day.js';
import { CLI, runCli, runCliProcess, type CliResult } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

let dir: string;
let db: string;
let aFile: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-mistakes-'));
  db = join(dir, 'analytics.duckdb');
  (await openDatabase(db)).close();
  aFile = join(dir, 'afile');
  writeFileSync(aFile, 'not a folder\n');
});

/** Every file under the test folder with its size and modification time: "nothing written". */
function snapshot(root: string = dir): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out[`${p}/`] = '';
        walk(p);
      } else {
        const s = statSync(p, { throwIfNoEntry: false });
        out[p] = s ? `${s.size}@${s.mtimeMs}` : 'dangling';
      }
    }
  };
  walk(root);
  return out;
}

/** Exit 2, one line on stderr that starts with the tool's name, nothing on stdout. */
function expectUsage(r: CliResult, pattern: RegExp): void {
  expect(r.stderr).toMatch(/^mintlify-etl: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
}

async function refused(args: string[], pattern: RegExp): Promise<void> {
  const before = snapshot();
  expectUsage(await runCli(args), pattern);
  expect(snapshot()).toEqual(before);
}

describe('a path that cannot be written is a usage error, and nothing is written', () => {
  it('export --out under a file (ENOTDIR)', async () => {
    await refused(
      ['export', '--db', db, '--out', join(aFile, 'sub')],
      /--out .*afile.* is a file, not a folder/,
    );
  });

  it('export --out that is a symbolic link to nowhere', async () => {
    const link = join(dir, 'dangling-out');
    symlinkSync(join(dir, 'no', 'such', 'folder'), link);
    await refused(
      ['export', '--db', db, '--out', link],
      /--out .*dangling-out is a symbolic link to .*which does not exist/,
    );
  });

  it('report --html onto a folder (EISDIR)', async () => {
    await refused(['report', '--db', db, '--html', dir], /--html .* is a folder: give a file name/);
  });

  it('report --html under a file', async () => {
    await refused(
      ['report', '--db', db, '--html', join(aFile, 'r.html')],
      /--html .*afile.* is a file, not a folder/,
    );
  });
});

describe('the database is never written over by an export or a report', () => {
  it('report --html onto the database file itself', async () => {
    await refused(['report', '--db', db, '--html', db], /--html .* is the database/);
  });

  it('report --html onto a symbolic link to the database, or onto its write-ahead log', async () => {
    const link = join(dir, 'link-to-db.html');
    symlinkSync(db, link);
    await refused(['report', '--db', db, '--html', link], /--html .* is the database/);
    await refused(['report', '--db', db, '--html', `${db}.wal`], /--html .* is the database's/);
  });

  it('export --out into a table folder that holds the database', async () => {
    const holder = join(dir, 'holder');
    mkdirSync(join(holder, 'site_daily'), { recursive: true });
    const inner = join(holder, 'site_daily', 'analytics.duckdb');
    (await openDatabase(inner)).close();
    await refused(
      ['export', '--db', inner, '--out', holder],
      /--out .* would write where the database .* is/,
    );
  });

  it('export --out that is the database file', async () => {
    await refused(['export', '--db', db, '--out', db], /--out .* is a file, not a folder/);
  });

  it("export --out into the database's own folder writes next to it and leaves it alone", async () => {
    const own = mkdtempSync(join(tmpdir(), 'mintlify-etl-own-'));
    const ownDb = join(own, 'analytics.duckdb');
    const ownDbHandle = await openDatabase(ownDb);
    await ownDbHandle.connection.run(
      `INSERT INTO site_daily VALUES ('docs', DATE '2026-03-01', 5, 1, 6, false, TIMESTAMPTZ '2026-03-02 00:00:00+00', 'r1')`,
    );
    await ownDbHandle.connection.run(
      `INSERT INTO page_daily VALUES ('docs', DATE '2026-03-01', '/intro', 5, 1, 6)`,
    );
    ownDbHandle.close();
    const before = readFileSync(ownDb);
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['export', '--db', ownDb, '--out', own]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/page_daily\s+1 row\(s\) in 1 file\(s\)/);
    }
    expect(readFileSync(ownDb).equals(before)).toBe(true);
    expect(readdirSync(own).sort()).toEqual([
      '.mintlify-etl-export.json',
      'analytics.duckdb',
      'page_daily',
      'site_daily',
    ]);
  });
});

describe('a file that is not a DuckDB database', () => {
  it('is refused by query, status, report and export, read-only', async () => {
    const empty = join(dir, 'empty.duckdb');
    writeFileSync(empty, '');
    for (const file of ['/etc/passwd', empty]) {
      for (const args of [
        ['query', 'SELECT 1'],
        ['status'],
        ['report'],
        ['export', '--out', join(dir, 'x')],
      ]) {
        await refused([...args, '--db', file], /--db .* is not a DuckDB database/);
      }
    }
  });
});

describe('days before Mintlify had analytics', () => {
  it('export --from 0999-01-01 is refused with the reason', async () => {
    await refused(
      ['export', '--db', db, '--out', join(dir, 'x'), '--from', '0999-01-01'],
      /--from "0999-01-01" .*Mintlify has no analytics before 2000/,
    );
  });
});

describe('emulator listen failures', () => {
  let busy: Server;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('--days under 4 (the edge days need room): one line that says the range, nothing written', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'emulator-days-')), 'bucket');
    for (const days of ['1', '3']) {
      expectUsage(
        await runCli(['emulator', '--port', '0', '--days', days, '--events-out', out]),
        new RegExp(`--days "${days}" must be an integer from 4 to 3660`),
      );
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a port in use (EADDRINUSE)', async () => {
    const port = (busy.address() as { port: number }).port;
    expectUsage(await runCli(['emulator', '--port', String(port)]), new RegExp(`--port ${port} is in use`));
  });

  it('an address that is not on this machine (EADDRNOTAVAIL)', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never assigned to a real interface.
    expectUsage(
      await runCli(['emulator', '--port', '0', '--host', '192.0.2.1', '--allow-remote']),
      /--host 192\.0\.2\.1 is not an address of this machine/,
    );
  });

  it('a host that is not loopback (every interface) without --allow-remote', async () => {
    expectUsage(
      await runCli(['emulator', '--port', '0', '--host', '0.0.0.0']),
      /--host 0\.0\.0\.0 is not a loopback address.*--allow-remote/,
    );
  });

  it('--allow-remote binds every interface and prints the address it bound, not 127.0.0.1', async () => {
    const emu = runCliProcess(['emulator', '--port', '0', '--host', '0.0.0.0', '--allow-remote']);
    let banner = '';
    emu.child.stdout?.on('data', (d: Buffer) => (banner += d.toString()));
    await waitFor(() => banner.includes('\n'), {
      what: 'the emulator banner',
      abortIf: () => (emu.child.exitCode !== null ? `it exited ${emu.child.exitCode}` : undefined),
    });
    emu.child.kill('SIGTERM');
    expect((await emu).code).toBe(0);
    expect(banner).toMatch(/^mintlify emulator listening on 0\.0\.0\.0:\d+ \(every interface\)/);
  });
});

describe('flags', () => {
  it('--api-key is refused pointing at MINTLIFY_API_KEY and --api-key-file', async () => {
    expectUsage(await runCli(['sync', '--api-key', 'mint_x']), /MINTLIFY_API_KEY.*--api-key-file/);
    const r = await runCli(['agent', 'get', 'job1', '--api-key=mint_x']);
    expectUsage(r, /MINTLIFY_API_KEY.*--api-key-file/);
    expect(r.stderr).not.toContain('mint_x');
  });

  it('sync --verbose and --quiet conflict', async () => {
    const r = await runCli(['sync', '-v', '-q', '--project', 'p', '--db', join(dir, 'vq.duckdb')], {
      MINTLIFY_API_KEY: 'mint_x',
      MINTLIFY_API_URL: 'http://127.0.0.1:9',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot be used with/);
  });

  it('sync flags that act on no stream of the run are refused, naming the stream they need', async () => {
    const env = { MINTLIFY_API_KEY: 'mint_x', MINTLIFY_PROJECT_ID: 'p' };
    const db = join(dir, 'flags.duckdb');
    expectUsage(
      await runCli(['sync', '--db', db, '--streams', 'feedback', '--period-pages'], env),
      /--period-pages acts on visitors_weekly and visitors_monthly.*--streams visitors_weekly/,
    );
    expectUsage(
      await runCli(
        [
          'sync',
          '--db',
          db,
          '--streams',
          'assistant,assistant_threads',
          '--max-pages',
          'assistant_threads=2',
        ],
        env,
      ),
      /no pages; --max-threads caps/,
    );
    expectUsage(
      await runCli(
        [
          'sync',
          '--db',
          db,
          '--streams',
          'feedback',
          '--max-pages',
          'feedback=1',
          '--max-pages',
          'feedback=2',
        ],
        env,
      ),
      /--max-pages feedback is given twice/,
    );
    expectUsage(
      await runCli(['sync', '--db', db], { ...env, MINTLIFY_ETL_STREAMS: 'feedback,bogus' }),
      /^mintlify-etl: MINTLIFY_ETL_STREAMS: unknown stream "bogus"/,
    );
    expect(existsSync(db)).toBe(false);
  });

  it('agent get --help does not offer --rate-limit, agent create --help does', async () => {
    const get = await runCli(['agent', 'get', '--help']);
    expect(get.code).toBe(0);
    expect(get.stdout).not.toContain('--rate-limit');
    expect((await runCli(['agent', 'create', '--help'])).stdout).toContain('--rate-limit');
  });
});

describe('sync with many days in parallel', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 5, days: 40, paths: 50, today: '2027-03-04' });
  });
  afterAll(() => emu.close());

  it('--concurrency 12 prints no MaxListenersExceededWarning', async () => {
    const r = await runCli(
      ['sync', '--db', join(dir, 'many.duckdb'), '--from', addDays('2027-03-04', -30), '--concurrency', '12'],
      {
        MINTLIFY_ETL_NOW: '2027-03-04T09:00:00Z',
        MINTLIFY_API_URL: emu.url,
        MINTLIFY_API_KEY: emu.apiKey,
        MINTLIFY_PROJECT_ID: emu.projectId,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('MaxListenersExceededWarning');
  });
});

describe('a duration flag given a bare number is refused, whichever flag it is', () => {
  const env = { MINTLIFY_PROJECT_ID: 'docs', MINTLIFY_API_KEY: 'mint_test_bare_number' };
  it.each([
    [
      ['sync', '--dry-run', '--max-duration', '50'],
      /--max-duration "50" has no unit: write it with one, e\.g\. 50m/,
    ],
    [['sync', '--dry-run', '--max-wait', '10'], /--max-wait "10" has no unit: write it with one, e\.g\. 10m/],
    [['sync', '--dry-run', '--rate-limit', '100/3600'], /--rate-limit "100\/3600" is not N\/DURATION/],
    [
      ['agent', 'wait', 'job1', '--interval', '5'],
      /--interval "5" has no unit: write it with one, e\.g\. 5m/,
    ],
    [
      ['agent', 'wait', 'job1', '--timeout', '30'],
      /--timeout "30" has no unit: write it with one, e\.g\. 30m/,
    ],
  ])('%j exits 2 and asks for a unit', async (args, pattern) => {
    const before = snapshot();
    expectUsage(await runCli([...args, '--db', db], env), pattern);
    expect(snapshot()).toEqual(before);
  });
});

describe('every mistake is one line with its fix (issue 27, item 19)', () => {
  const env = { MINTLIFY_PROJECT_ID: 'docs', MINTLIFY_API_KEY: 'mint_test_one_line_fix' };

  it('--api-key-file that does not exist says so and how to give the key', async () => {
    const before = snapshot();
    const r = await runCli(['sync', '--dry-run', '--db', db, '--api-key-file', join(dir, 'missing-key')], {
      MINTLIFY_PROJECT_ID: 'docs',
    });
    expectUsage(r, /--api-key-file .*missing-key does not exist: .*MINTLIFY_API_KEY/);
    expect(r.stderr).not.toContain('ENOENT');
    expect(snapshot()).toEqual(before);
  });

  it('--rate-limit 0/1h says the count must be at least 1', async () => {
    expectUsage(
      await runCli(['sync', '--dry-run', '--db', db, '--rate-limit', '0/1h'], env),
      /--rate-limit "0\/1h": the count must be at least 1.*100\/1h/,
    );
  });

  it('--rate-limit above the service limit is accepted with a warning that the service refuses past 100/1h', async () => {
    const r = await runCli(['sync', '--dry-run', '--db', db, '--rate-limit', '500/1h'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warn: --rate-limit 500\/1h is more than the service's 100 requests an hour/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('query with no SQL says how to give it', async () => {
    expectUsage(
      await runCli(['query', '--db', db]),
      /query needs the SQL to run: .*mintlify-etl query "SELECT/,
    );
  });

  it('a key file others can read is used, with a warning to chmod 600 it', async () => {
    const keyFile = join(dir, 'shared-key');
    writeFileSync(keyFile, 'mint_test_readable_by_others\n', { mode: 0o644 });
    chmodSync(keyFile, 0o644);
    const r = await runCli(['sync', '--dry-run', '--db', db, '--api-key-file', keyFile], {
      MINTLIFY_PROJECT_ID: 'docs',
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warn: --api-key-file .*shared-key is readable by others.*chmod 600/);
    expect(r.stderr).not.toContain('mint_test_readable');
    chmodSync(keyFile, 0o600);
    const quiet = await runCli(['sync', '--dry-run', '--db', db, '--api-key-file', keyFile], {
      MINTLIFY_PROJECT_ID: 'docs',
    });
    expect(quiet.stderr).not.toMatch(/readable by others/);
  });
});

describe('an unknown project is one line (issue 27, item 19)', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 5, days: 10, paths: 20 });
  });
  afterAll(() => emu.close());

  it('--project with a typo prints one line naming the project and where to check it', async () => {
    const r = await runCli(
      ['sync', '--db', join(dir, 'typo.duckdb'), '--project', 'proj_dmeo', '--streams', 'visitors'],
      { MINTLIFY_API_URL: emu.url, MINTLIFY_API_KEY: emu.apiKey },
    );
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/project proj_dmeo was not found \(404\).*--project/);
  });
});

describe('a new database only where the user meant one (issue 27, item 18)', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 6, days: 10, paths: 20 });
  });
  afterAll(() => emu.close());
  const envOf = (): Record<string, string> => ({
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
  });

  it('sync --db in a folder that does not exist exits 2 with the fix, creates nothing and sends nothing', async () => {
    const before = snapshot();
    const sent = emu.stats.requests;
    const r = await runCli(['sync', '--db', join(dir, 'nope', 'sub', 'a.duckdb')], envOf());
    expectUsage(r, /--db .*nope\/sub\/a\.duckdb: the folder .*nope\/sub does not exist.*mkdir -p/);
    expect(snapshot()).toEqual(before);
    expect(emu.stats.requests).toBe(sent);
    const fromEnv = await runCli(['sync'], { ...envOf(), MINTLIFY_ETL_DB: join(dir, 'nope', 'b.duckdb') });
    expectUsage(fromEnv, /MINTLIFY_ETL_DB .*nope\/b\.duckdb: the folder .*nope does not exist/);
    expect(emu.stats.requests).toBe(sent);
  });

  it('sync says when it created a new database, and only then', async () => {
    const fresh = join(dir, 'fresh.duckdb');
    const args = ['sync', '--db', fresh, '--streams', 'visitors', '--from', addDays(emu.dataset.today, -2)];
    const first = await runCli(args, envOf());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`created a new database at ${fresh}`);
    const second = await runCli(args, envOf());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('created a new database');
  });
});
