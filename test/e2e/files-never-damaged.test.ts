import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { buildReportFixture } from '../helpers/report-fixture.js';

// Every sync here is refused before its first request: an address nobody listens on proves it.
const apiDown = {
  MINTLIFY_API_URL: 'http://127.0.0.1:9',
  MINTLIFY_API_KEY: 'mint_test_key',
  MINTLIFY_PROJECT_ID: 'proj',
};

// A refusal that hangs is the bug; this bounds the wait for it, it is not a timing claim.
const HANG_GUARD_MS = 30_000;

const tmp = tempDir('mintlify-etl-never-damaged-');
let db: string;

beforeAll(async () => {
  db = join(tmp.dir, 'analytics.duckdb');
  await buildReportFixture(db, { streams: ['views', 'searches', 'caller_stats'] });
});
afterAll(() => tmp.cleanup());

/** Exit 2, one line on stderr that starts with the tool's name, nothing on stdout. */
function expectUsage(r: CliResult, pattern: RegExp): void {
  expect(r.stderr).toMatch(/^mintlify-etl: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
}

function fresh(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

describe('a damaged database file is refused before anything is written to it', () => {
  for (const share of [0.9, 0.3]) {
    it(`sync on a database cut to ${share * 100}% of its size exits 2 saying to restore it or move it aside`, async () => {
      const dir = fresh(`cut-${share * 100}`);
      const cut = join(dir, 'analytics.duckdb');
      copyFileSync(db, cut);
      truncateSync(cut, Math.floor(statSync(db).size * share));
      const before = readFileSync(cut);
      const r = await runCli(['sync', '--db', cut], apiDown);
      expectUsage(r, /database .*analytics\.duckdb is damaged.*restore it from a backup.*move it aside/);
      expect(readFileSync(cut).equals(before)).toBe(true);
      expect(readdirSync(dir)).toEqual(['analytics.duckdb']);
    });
  }
});

describe('report --html never replaces a file it did not write', () => {
  it('refuses an existing file that is not one of its pages with exit 2, and --force replaces it', async () => {
    const dir = fresh('html-foreign');
    const page = join(dir, 'notes.html');
    writeFileSync(page, 'my own notes\n');
    expectUsage(
      await runCli(['report', '--db', db, '--html', page]),
      /--html .*notes\.html exists and was not written by mintlify-etl.*--force/,
    );
    expect(readFileSync(page, 'utf8')).toBe('my own notes\n');
    const forced = await runCli(['report', '--db', db, '--html', page, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain('<meta name="generator" content="mintlify-etl report">');
    expect(readdirSync(dir)).toEqual(['notes.html']);
  });

  it('replaces its own earlier page without --force and leaves no temporary file', async () => {
    const dir = fresh('html-own');
    const page = join(dir, 'report.html');
    for (let i = 0; i < 2; i++) expect((await runCli(['report', '--db', db, '--html', page])).code).toBe(0);
    expect(readdirSync(dir)).toEqual(['report.html']);
  });

  it(
    'never writes to a FIFO, even with --force, and leaves it a FIFO',
    async () => {
      const dir = fresh('html-fifo');
      const fifo = join(dir, 'pipe.html');
      mkfifo(fifo);
      for (const force of [[], ['--force']]) {
        expectUsage(
          await runCli(['report', '--db', db, '--html', fifo, ...force]),
          /--html .*pipe\.html is a FIFO, not a regular file/,
        );
        expect(lstatSync(fifo).isFIFO()).toBe(true);
      }
    },
    HANG_GUARD_MS,
  );
});

describe('export --out never writes into a folder that is not an export', () => {
  it('refuses a folder holding other files with exit 2 and writes nothing; --force writes', async () => {
    const out = fresh('export-foreign');
    writeFileSync(join(out, 'passwd'), 'root:x:0:0\n');
    expectUsage(
      await runCli(['export', '--db', db, '--out', out]),
      /--out .*export-foreign holds files that are not an export of mintlify-etl.*--force/,
    );
    expect(readdirSync(out)).toEqual(['passwd']);
    expect((await runCli(['export', '--db', db, '--out', out, '--force'])).code).toBe(0);
    expect(readdirSync(out)).toContain('site_daily');
  });

  it('exports again into its own earlier export, and into one made before the export wrote a manifest', async () => {
    const out = fresh('export-again');
    expect((await runCli(['export', '--db', db, '--out', out])).code).toBe(0);
    expect((await runCli(['export', '--db', db, '--out', out])).code).toBe(0);
    const older = fresh('export-older');
    mkdirSync(join(older, 'site_daily'));
    mkdirSync(join(older, 'page_daily'));
    expect((await runCli(['export', '--db', db, '--out', older])).code).toBe(0);
  });
});

describe('paths that used to hang exit 2 at once and write nothing', () => {
  it(
    'sync --db under /proc (mkdir there fails with ENOENT forever)',
    async () => {
      expectUsage(
        await runCli(['sync', '--db', '/proc/mintlify-etl-x/y.duckdb'], apiDown),
        /--db \/proc\/mintlify-etl-x\/y\.duckdb: (cannot create the folder|the folder) \/proc\/mintlify-etl-x/,
      );
    },
    HANG_GUARD_MS,
  );

  for (const sibling of ['.requests.jsonl', '.lock']) {
    it(
      `sync with a FIFO at <db>${sibling}`,
      async () => {
        const dir = fresh(`fifo${sibling}`);
        const file = join(dir, 'analytics.duckdb');
        copyFileSync(db, file);
        mkfifo(`${file}${sibling}`);
        const before = readFileSync(file);
        expectUsage(
          await runCli(['sync', '--db', file], apiDown),
          new RegExp(`analytics\\.duckdb\\${sibling} is a FIFO, not a (regular|lock) file: remove it`),
        );
        expect(readFileSync(file).equals(before)).toBe(true);
        expect(lstatSync(`${file}${sibling}`).isFIFO()).toBe(true);
      },
      HANG_GUARD_MS,
    );
  }
});

describe('paths the user cannot write are exit 2 with one line naming them', () => {
  // Root may write anywhere a mode allows, so chmod cannot make EACCES for root: sysfs refuses
  // new files with EACCES to every user, and /proc has no folders to create.
  it('report --html in a folder nobody may create files in (EACCES)', async () => {
    expectUsage(
      await runCli(['report', '--db', db, '--html', '/sys/mintlify-etl-report.html']),
      /--html \/sys\/mintlify-etl-report\.html: cannot write .*permission denied/,
    );
  });

  it('sync --db in a folder nobody may create files in (EACCES)', async () => {
    expectUsage(
      await runCli(['sync', '--db', '/sys/mintlify-etl.duckdb'], apiDown),
      /\/sys\/mintlify-etl\.duckdb.*permission denied/,
    );
  });

  it('export --out below /proc', async () => {
    expectUsage(
      await runCli(['export', '--db', db, '--out', '/proc/mintlify-etl-export']),
      /--out \/proc\/mintlify-etl-export: cannot create the folder/,
    );
  });

  // A full disk or a read-only mount cannot be made without privileges: the file system's answer
  // is injected into the CLI process instead, by a preload that fails writes of temporary files.
  for (const [code, words] of [
    ['ENOSPC', 'no space left on the device'],
    ['EROFS', 'read-only file system'],
  ] as const) {
    it(`report --html on a disk that answers ${code}, leaving no temporary file`, async () => {
      const dir = fresh(`html-${code}`);
      const preload = join(dir, 'fail-writes.mjs');
      writeFileSync(
        preload,
        `import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
const original = fsp.writeFile;
fsp.writeFile = async (path, ...rest) => {
  if (!String(path).endsWith('.tmp')) return original(path, ...rest);
  throw Object.assign(new Error('${code}: injected'), { code: '${code}' });
};
syncBuiltinESMExports();
`,
      );
      const page = join(dir, 'out', 'report.html');
      expectUsage(
        await runCli(['report', '--db', db, '--html', page], { NODE_OPTIONS: `--import ${preload}` }),
        new RegExp(`--html .*report\\.html: cannot write .*\\(${words}, ${code}\\)`),
      );
      expect(readdirSync(join(dir, 'out'))).toEqual([]);
    });
  }

  it("sync when the journal's place is taken by a folder", async () => {
    const dir = fresh('journal-folder');
    const file = join(dir, 'analytics.duckdb');
    copyFileSync(db, file);
    mkdirSync(`${file}.requests.jsonl`);
    expectUsage(
      await runCli(['sync', '--db', file], apiDown),
      /analytics\.duckdb\.requests\.jsonl is a folder, not a regular file: remove it/,
    );
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('agent get exits 4 when the API cannot be reached, like sync', async () => {
    const r = await runCli(['agent', 'get', 'job_1', '--db', join(fresh('agent'), 'a.duckdb')], apiDown);
    expect(r.stderr).toMatch(/connection refused|ECONNREFUSED|could not be reached/i);
    expect(r.code).toBe(4);
  });
});
