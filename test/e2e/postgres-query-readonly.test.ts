import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlError } from '../../src/errors.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { runReadOnly } from '../../src/load/postgres/user-query.js';
import { parseStatements } from '../../src/load/postgres/statements.js';
import { CLI, runCli } from '../helpers/cli.js';
import { freePort, hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * `query` on PostgreSQL runs the user's SQL in a read-only transaction that is rolled back, and
 * --timeout bounds the whole command. Attacks that leave read-only mode are refused before
 * anything runs; a path past that refusal is refused by the server; no statement, FETCH, DO block
 * or stalled reader of the output holds the transaction past --timeout.
 */
describe.skipIf(!hasPostgres())('query on PostgreSQL stays read-only and within --timeout', () => {
  let server: PostgresServer;
  let admin: pg.Client;
  const ROWS = 5;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await migratePostgres(admin, { schema: 'mintlify' });
    for (let d = 1; d <= ROWS; d++)
      await admin.query(
        `INSERT INTO mintlify.site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id)
         VALUES ('p', DATE '2026-03-01' + $1::int, 10, 1, 11, false, now(), 'r')`,
        [d],
      );
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  const count = async (): Promise<number> =>
    (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM mintlify.site_daily')).rows[0]?.n ?? -1;

  it.each([
    [
      'the issue’s payload',
      'SET TRANSACTION READ WRITE; DELETE FROM mintlify.site_daily; SELECT count(*) FROM mintlify.site_daily',
    ],
    ['lower case and comments', '/* hi */ set/**/transaction -- x\n read write; delete from site_daily'],
    [
      'after a read, with a semicolon in a string',
      "SELECT ';'; SET TRANSACTION READ WRITE; DELETE FROM site_daily",
    ],
    ['COMMIT', 'COMMIT; DELETE FROM site_daily'],
    ['set_config spelled in Unicode escapes', `SELECT U&"\\0073et_config"('statement_timeout', '0', false)`],
    [
      'SET inside a DO block',
      'DO $body$ BEGIN SET TRANSACTION READ WRITE; DELETE FROM site_daily; END $body$',
    ],
  ])('refuses %s before anything runs, exit 2 in one line, and changes nothing', async (_what, sql) => {
    const r = await runCli(['query', '--db', server.url, '--format', 'csv', sql]);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /is refused before anything ran: query runs your SQL in a read-only transaction/,
    );
    expect(r.stdout).toBe('');
    expect(await count()).toBe(ROWS);
  });

  it('has the server refuse read-write mode for a statement that got past the check', async () => {
    // runReadOnly is what runs after the check: its first statement is a query, after which
    // PostgreSQL refuses read-write mode. The check is left out here to show the second guard.
    const statements = parseStatements(
      'SET TRANSACTION READ WRITE; DELETE FROM mintlify.site_daily; SELECT count(*) FROM mintlify.site_daily',
    );
    const client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    try {
      const err = await runReadOnly(client, statements, {}, () => Promise.resolve()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SqlError);
      expect((err as Error).message).toMatch(/transaction read-write mode must be set before any query/);
    } finally {
      await client.end();
    }
    expect(await count()).toBe(ROWS);
  });

  it('has the server refuse read-write mode built at run time, which no check can see', async () => {
    const sql = "DO $$BEGIN EXECUTE 'SE' || 'T TRANSACTION READ WRITE'; DELETE FROM site_daily; END$$";
    const r = await runCli(['query', '--db', server.url, sql]);
    expect(r.code, r.stderr).toBe(2);
    // query refuses a DO block's EXECUTE before anything runs (it could also build the name of the
    // visitor hash key, src/load/hash-key-guard.ts); the server's refusal stays behind it.
    expect(r.stderr).toMatch(
      /transaction read-write mode must be set before any query|a DO block with EXECUTE is refused before anything ran/,
    );
    expect(await count()).toBe(ROWS);
  });

  it('refuses before it connects: the refusal comes first even when no server listens', async () => {
    const port = await freePort();
    const r = await runCli([
      'query',
      '--db',
      `postgresql://u@127.0.0.1:${port}/x`,
      'SET TRANSACTION READ WRITE',
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/SET TRANSACTION is refused before anything ran/);
    expect(r.stderr).not.toMatch(/cannot reach/);
  });

  it('runs the same words where they are data: in strings, dollar quotes, comments and quoted names', async () => {
    const sql =
      'SELECT \'SET TRANSACTION READ WRITE; COMMIT\' AS a, $x$ set_config(1) $x$ AS b /* RESET ALL; */, 1 AS "commit"';
    const r = await runCli(['query', '--db', server.url, '--format', 'csv', sql]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('a,b,commit\nSET TRANSACTION READ WRITE; COMMIT, set_config(1) ,1\n');
  });

  it.each([
    ['EXPLAIN ANALYZE of a slow query', 'EXPLAIN ANALYZE SELECT pg_sleep(60)'],
    ['a DO block', 'DO $$BEGIN PERFORM pg_sleep(60); END$$'],
    ['a DO block after a read', 'SELECT 1; DO $$BEGIN PERFORM pg_sleep(60); END$$'],
  ])('cancels %s as the last statement (no cursor) at --timeout', async (_what, sql) => {
    const r = await runCli(['query', '--db', server.url, '--timeout', '1', sql]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/canceling statement due to statement timeout \(after 1 s/);
  });

  it('bounds the whole command, not each statement: ten statements of 0.6 s each end at --timeout 2', async () => {
    const sql = Array.from({ length: 10 }, () => 'SELECT pg_sleep(0.6)').join('; ');
    const r = await runCli(['query', '--db', server.url, '--timeout', '2', '--format', 'csv', sql]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/canceling statement due to statement timeout \(after 2 s/);
    expect(r.stdout).toBe('');
  });

  it('bounds the whole command, not each FETCH: ten batches of 0.6 s each end at --timeout 2', async () => {
    // One sleep per 2,048 rows: every FETCH takes 0.6 s, the whole result 6 s.
    const sql =
      'SELECT x, CASE WHEN x % 2048 = 1 THEN pg_sleep(0.6) END AS s FROM generate_series(1, 2048 * 10) x';
    const r = await runCli(['query', '--db', server.url, '--timeout', '2', '--format', 'csv', sql]);
    expect(r.code, r.stderr).toBe(2);
    // Whichever bound ends it first (src/load/postgres/query-deadline.ts): the server's
    // statement_timeout on the FETCH running at the deadline, or, when the deadline falls between
    // two FETCHes on a busy machine, the client's timer a second later. Both are --timeout's line.
    expect(r.stderr).toMatch(/statement timeout \(after 2 s|the query ran past --timeout \(2 s\)/);
  });

  it('stops a query the server never answers (a stalled network) at --timeout, with its own line', async () => {
    const proxy = await stallingProxy(server.port, 'stall-here');
    try {
      const url = `postgresql://postgres@127.0.0.1:${proxy.port}/${server.database}`;
      const r = await runCli(['query', '--db', url, '--timeout', '1', "SELECT 'stall-here' AS x"]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^mintlify-etl: the query ran past --timeout \(1 s\) and was stopped: raise --timeout/,
      );
      expect(proxy.stalled()).toBe(true);
    } finally {
      proxy.close();
    }
  });

  it('ends the transaction at --timeout while the output is not being read', async () => {
    // A reader that stops reading (a paused pager) must not hold the transaction and its locks.
    const child = spawn(
      process.execPath,
      [
        CLI,
        'query',
        '--db',
        server.url,
        '--timeout',
        '2',
        '--format',
        'csv',
        "SELECT repeat('x', 100) AS pad, d.* FROM site_daily d, generate_series(1, 100000)",
      ],
      { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.pause();
    const holding = async (): Promise<number> =>
      (
        await admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name LIKE 'mintlify-etl%' AND l.relation = 'mintlify.site_daily'::regclass",
        )
      ).rows[0]?.n ?? 0;
    // The query starts and takes its lock, then stops behind the full pipe...
    await waitFor(async () => (await holding()) > 0);
    // ... and the lock goes at the timeout, while nobody reads the output.
    await waitFor(async () => (await holding()) === 0);
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
  }, 30_000);
});

/**
 * A TCP proxy to PostgreSQL that forwards everything until the client sends `marker`, and from
 * then on forwards nothing on that connection in either direction: a network that stalls.
 */
async function stallingProxy(
  port: number,
  marker: string,
): Promise<{ port: number; stalled: () => boolean; close: () => void }> {
  let stalled = false;
  const sockets: Socket[] = [];
  const proxy = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.push(client, upstream);
    let frozen = false;
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes(marker)) frozen = stalled = true;
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!frozen) client.write(chunk);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    stalled: () => stalled,
    close: () => {
      for (const s of sockets) s.destroy();
      proxy.close();
    },
  };
}

/** Polls `cond` until it holds (the test's own timeout bounds it). */
async function waitFor(cond: () => Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setImmediate(r));
}
