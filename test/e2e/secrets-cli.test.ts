import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { startFakeApi, type FakeApi } from '../helpers/fake-api.js';

const KEY = 'mint_E2eLeak7hK2-pQ9.xZ4~wR8Yv';
const PROJECT = 'proj';

/** Every 8-character piece of the key: a half-redacted key is still a leak. */
const PIECES = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));

/** The text as written, and with \uXXXX and %XX sequences decoded: an encoded key is a key. */
function readings(text: string): string[] {
  const unicode = text.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) =>
    String.fromCharCode(parseInt(h, 16)),
  );
  const percent = text.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return [text, unicode, percent];
}

function leaked(text: string): string[] {
  return PIECES.filter((p) => readings(text).some((t) => t.includes(p)));
}

function expectNoKey(where: string, r: CliResult): void {
  expect({ where, stdout: leaked(r.stdout), stderr: leaked(r.stderr) }).toEqual({
    where,
    stdout: [],
    stderr: [],
  });
}

/** The key as a hostile server echoes it: raw, each character \u-escaped, partly escaped, percent-encoded. */
function echoing(req: IncomingMessage, status: number): { status: number; body: string } {
  const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const hex = (c: string, width: number): string => c.charCodeAt(0).toString(16).padStart(width, '0');
  const unicode = [...key].map((c) => `\\u${hex(c, 4)}`).join('');
  const partly = [...key].map((c, i) => (i % 2 ? `\\u${hex(c, 4).toUpperCase()}` : c)).join('');
  const percent = [...key].map((c) => `%${hex(c, 2)}`).join('');
  const body = `{"error":"invalid key ${key} for ${req.url ?? ''}","details":[{"message":"${unicode}"},{"message":"${partly}"},{"message":"${percent}"}]}`;
  return { status, body };
}

describe('the API key never shows, however the server echoes it', () => {
  let api: FakeApi;
  let mode: 'mixed' | 'refuse' = 'mixed';
  beforeAll(async () => {
    api = await startFakeApi((req) => {
      if (mode === 'refuse') return echoing(req, 401);
      if (req.url?.includes('/visitors?'))
        return { status: 200, body: { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false } };
      return echoing(req, 400);
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('is absent from stdout, stderr, every --json summary and every text column of the database', async () => {
    const db = tempDbPath();
    // The key in the URL's path too (a proxy that takes it there): every message naming a request shows that path.
    const env = {
      MINTLIFY_API_KEY: KEY,
      MINTLIFY_PROJECT_ID: PROJECT,
      MINTLIFY_API_URL: `${api.url}/${KEY}`,
      MINTLIFY_ETL_STREAMS: 'visitors,views',
      MINTLIFY_ETL_DEBUG: '1',
    };
    const range = ['--from', '2026-01-05', '--to', '2026-01-06'];

    mode = 'mixed';
    const failedWindow = await runCli(['sync', '--db', db, ...range, '--json'], env);
    expect(failedWindow.code).toBe(4);
    expectNoKey('sync --json (a window refused with 400)', failedWindow);

    mode = 'refuse';
    const runs: [string, CliResult][] = [
      ['sync --json (401)', await runCli(['sync', '--db', db, ...range, '--refresh', '--json'], env)],
      ['sync (401)', await runCli(['sync', '--db', db, ...range, '--refresh'], env)],
      ['check', await runCli(['check', '--db', db], env)],
      ['check --json', await runCli(['check', '--db', db, '--json'], env)],
      ['status', await runCli(['status', '--db', db], env)],
      ['status --json', await runCli(['status', '--db', db, '--json'], env)],
    ];
    expect(runs[0]?.[1].code).toBe(3);
    expect(runs[0]?.[1].stderr).toContain('mint_****');
    for (const [where, r] of runs) expectNoKey(where, r);

    const tables: Record<string, unknown[]> = {};
    for (const t of ['sync_runs', 'sync_windows', 'api_requests'])
      tables[t] = await readRows(db, `SELECT * FROM ${t}`);
    expect(tables['sync_windows']?.length).toBeGreaterThan(0);
    expect(leaked(JSON.stringify(tables))).toEqual([]);
    const errors = await readRows<{ error: string }>(
      db,
      'SELECT error FROM sync_runs WHERE error IS NOT NULL UNION ALL SELECT error FROM sync_windows WHERE error IS NOT NULL',
    );
    expect(errors.length).toBeGreaterThan(0);
  }, 60_000);

  it('is redacted by status even from a database an older version wrote it into', async () => {
    const db = tempDbPath();
    const env = { MINTLIFY_API_KEY: KEY, MINTLIFY_PROJECT_ID: PROJECT, MINTLIFY_API_URL: api.url };
    mode = 'mixed';
    expect(
      (
        await runCli(
          ['sync', '--db', db, '--from', '2026-01-05', '--to', '2026-01-06', '--streams', 'visitors'],
          env,
        )
      ).code,
    ).toBe(0);
    const instance = await DuckDBInstance.create(db);
    const conn = await instance.connect();
    await conn.run(`UPDATE sync_runs SET error = 'GET /${KEY}/v1 refused'`);
    conn.closeSync();
    instance.closeSync();
    for (const args of [
      ['status', '--db', db, '--json'],
      ['status', '--db', db],
    ]) {
      const r = await runCli(args, { MINTLIFY_API_KEY: KEY });
      expect(r.stdout).toContain('mint_****');
      expectNoKey(args.join(' '), r);
    }
  });

  it('refuses a key with a character a key cannot hold (a quote), naming the characters allowed', async () => {
    const r = await runCli(['sync', '--db', tempDbPath(), '--json'], {
      MINTLIFY_API_KEY: 'mint_abc"def0123456789',
      MINTLIFY_PROJECT_ID: PROJECT,
      MINTLIFY_API_URL: api.url,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/letters, digits and - \. _ ~ \+ \/ =/);
    expect(r.stderr + r.stdout).not.toContain('def0123456789');
    expect(api.seen.some((s) => s.includes('def0123456789'))).toBe(false);
  });
});

describe('a URL with a user and password', () => {
  it.each([
    ['http:// to another machine', 'http://alice:Pa55word_s3cret@example.com/api'],
    ['https://', 'https://alice:Pa55word_s3cret@example.com'],
    ['not even a URL', 'htp//alice:Pa55word_s3cret@ example'],
  ])('is refused (%s) without showing the password', async (_what, url) => {
    const r = await runCli(['sync', '--db', tempDbPath(), '--api-url', url, '--json'], {
      MINTLIFY_API_KEY: KEY,
      MINTLIFY_PROJECT_ID: PROJECT,
    });
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).not.toContain('Pa55word');
    expect(r.stderr + r.stdout).not.toContain('alice');
    expect(r.stderr).toContain('***@');
  });
});

describe('untrusted text in log lines', () => {
  const LONG_ID = 'T'.repeat(70_000);
  let api: FakeApi;
  beforeAll(async () => {
    api = await startFakeApi((req) => {
      if (req.url?.includes('/assistant/threads/'))
        return { status: 404, body: { error: 'thread not found' } };
      if (req.url?.includes('/assistant?'))
        return {
          status: 200,
          body: {
            conversations: [
              {
                id: LONG_ID,
                timestamp: '2026-01-06T10:00:00.000Z',
                query: 'how do I\nsplit a line?',
                response: 'r',
                sources: [],
                resolutionStatus: 'answered',
                queryCategory: null,
                pageUrl: null,
              },
            ],
            nextCursor: null,
            hasMore: false,
          },
        };
      return { status: 404, body: { error: 'no route' } };
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('keep one line per message: a newline in the database path is escaped, a 70,000-character thread id is shortened', async () => {
    const dir = join(dirname(tempDbPath()), 'two\nlines');
    mkdirSync(dir);
    const db = join(dir, 'analytics.duckdb');
    const r = await runCli(['sync', '--db', db, '--from', '2026-01-05', '--to', '2026-01-12'], {
      MINTLIFY_API_KEY: KEY,
      MINTLIFY_PROJECT_ID: PROJECT,
      MINTLIFY_API_URL: api.url,
      MINTLIFY_ETL_STREAMS: 'assistant,assistant_threads',
    });
    const lines = r.stderr.trimEnd().split('\n');
    // Not on a terminal, every line starts with its timestamp and run id: a split line would not.
    for (const line of lines)
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z run=[0-9a-f-]{36} /);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(2_000);
    expect(r.stderr).toContain('… (70000 chars)');
    const summary = lines.find((l) => l.includes(' -> '));
    expect(summary).toContain('two\\nlines');
    const errors = await readRows<{ n: number }>(
      db,
      'SELECT coalesce(max(length(error)), 0)::INT AS n FROM sync_windows',
    );
    expect(errors[0]?.n).toBeLessThan(2_000);
  }, 60_000);
});

describe('a database URL that does not parse', () => {
  // An unencoded # in the password: no URL parser finds the password where it is.
  const PASSWORD = 'Hunter2#Secret/Path?x';
  const URL_TEXT = `postgresql://etl:${PASSWORD}@host/db`;
  const pieces = Array.from({ length: PASSWORD.length - 7 }, (_, i) => PASSWORD.slice(i, i + 8));

  it.each([
    ['sync', ['sync', '--json']],
    ['sync --dry-run', ['sync', '--dry-run']],
    ['status', ['status', '--json']],
    ['query', ['query', 'SELECT 1']],
    ['export', ['export', '--out', 'x']],
    ['report', ['report']],
    ['gaps', ['gaps', '--json']],
    ['digest', ['digest']],
    ['alerts', ['alerts', '--json']],
    ['agent fix', ['agent', 'fix']],
    ['demo', ['demo']],
  ])('never shows a piece of its password (%s)', async (what, args) => {
    // demo takes no MINTLIFY_ETL_DB (it writes its own file), only --db.
    for (const how of what === 'demo' ? (['flag'] as const) : (['flag', 'env'] as const)) {
      const env: Record<string, string> = { MINTLIFY_API_KEY: KEY, MINTLIFY_PROJECT_ID: PROJECT };
      const argv = how === 'flag' ? [...args, '--db', URL_TEXT] : args;
      if (how === 'env') env['MINTLIFY_ETL_DB'] = URL_TEXT;
      const r = await runCli(argv, env);
      expect(r.code, `${how}: ${r.stderr}`).not.toBe(0);
      const out = r.stdout + r.stderr;
      expect({ how, shown: pieces.filter((p) => out.includes(p)) }).toEqual({ how, shown: [] });
    }
  });
});

describe('an API that echoes the key in pieces', () => {
  let api: FakeApi;
  beforeAll(async () => {
    api = await startFakeApi((req) => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const hex = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      // Two parts with a gap (22 of the key's characters), a \u-escaped middle, a percent-encoded tail.
      const body = {
        error: `invalid key ${key.slice(0, 10)} ... ${key.slice(-12)}`,
        details: [
          { message: `near ${[...key.slice(6, 18)].map(hex).join('')}` },
          { message: `tail ${encodeURIComponent(key.slice(-9))}` },
        ],
      };
      return {
        status: req.url?.includes('/visitors?') ? 400 : 401,
        body: JSON.stringify(body).replaceAll('\\\\u', '\\u'),
      };
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('shows no 8-character piece of it anywhere: stdout, stderr, --json and the database', async () => {
    const db = tempDbPath();
    const env = {
      MINTLIFY_API_KEY: KEY,
      MINTLIFY_PROJECT_ID: PROJECT,
      MINTLIFY_API_URL: api.url,
      MINTLIFY_ETL_STREAMS: 'visitors',
      MINTLIFY_ETL_DEBUG: '1',
    };
    const sync = await runCli(
      ['sync', '--db', db, '--from', '2026-01-05', '--to', '2026-01-05', '--json'],
      env,
    );
    expect(sync.code, sync.stderr).not.toBe(0);
    expectNoKey('sync --json', sync);
    const check = await runCli(['check', '--db', db], env);
    expectNoKey('check', check);
    const status = await runCli(['status', '--db', db, '--json'], env);
    expectNoKey('status --json', status);
    const rows = await readRows(db, 'SELECT * FROM sync_windows');
    expect(leaked(JSON.stringify(rows))).toEqual([]);
  }, 60_000);
});
