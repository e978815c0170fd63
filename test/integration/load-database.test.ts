import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseInUseError, InternalError, UsageError } from '../../src/errors.js';
import { sqlDir } from '../../src/paths.js';
import { lockHolder, openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { duckdbChild, tempDir, type NodeChild } from '../helpers/duckdb-temp.js';

let dir: string;
let cleanup: () => void;
const open: Database[] = [];
let child: NodeChild;

async function ask(cmd: Record<string, unknown>): Promise<string> {
  child.send(JSON.stringify(cmd));
  return child.nextLine();
}

beforeAll(async () => {
  child = duckdbChild();
  expect(await child.nextLine()).toBe('ready');
});
afterAll(async () => {
  await child.kill();
});
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  for (const db of open.splice(0)) db.close();
  await ask({ close: true });
  cleanup();
});

async function openTracked(path: string, opts?: Parameters<typeof openDatabase>[1]): Promise<Database> {
  const db = await openDatabase(path, opts);
  open.push(db);
  return db;
}

describe('openDatabase (read-write)', () => {
  it('creates the parent folder, the tables and the views, and records every migration once', async () => {
    const path = join(dir, 'nested', 'deeper', 'a.duckdb');
    const db = await openTracked(path);
    const first = await queryRows(db.connection, 'SELECT version, applied_at FROM schema_migrations');
    expect(first.map((r) => r['version'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const tables = await queryRows(
      db.connection,
      'SELECT table_name FROM duckdb_tables() ORDER BY table_name',
    );
    expect(tables.map((r) => r['table_name'])).toEqual([
      'agent_job_gaps',
      'agent_jobs',
      'alerts_sent',
      'analytics_events',
      'api_requests',
      'assistant_callers_daily',
      'assistant_messages',
      'assistant_threads',
      'assistant_turns',
      'event_hash_key',
      'event_object_failures',
      'event_object_unmapped',
      'event_objects',
      'feedback',
      'feedback_page_daily',
      'page_daily',
      'page_monthly',
      'page_views_daily',
      'page_weekly',
      'schema_migrations',
      'search_daily',
      'search_totals_daily',
      'site_daily',
      'site_monthly',
      'site_views_daily',
      'site_weekly',
      'sync_runs',
      'sync_windows',
    ]);
    const views = await queryRows(
      db.connection,
      'SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name',
    );
    expect(views.map((r) => r['view_name'])).toEqual([
      'v_assistant_callers_daily',
      'v_assistant_daily',
      'v_assistant_unanswered',
      'v_content_gaps',
      'v_coverage',
      'v_event_actions_daily',
      'v_event_assistant_daily',
      'v_event_referrers_daily',
      'v_event_search_daily',
      'v_event_sessions_daily',
      'v_event_traffic_daily',
      'v_event_visitors_daily',
      'v_event_vs_api_daily',
      'v_feedback_by_page',
      'v_feedback_open',
      'v_gap_outcomes',
      'v_page_health',
      'v_page_trends',
      'v_search_terms',
      'v_site_daily',
      'v_site_monthly',
      'v_site_weekly',
      'v_views_daily',
    ]);
    db.close();

    const again = await openTracked(path);
    expect(await queryRows(again.connection, 'SELECT version, applied_at FROM schema_migrations')).toEqual(
      first,
    );
  });

  it('applies a later migration on the next open, in one transaction with its record', async () => {
    const sql = join(dir, 'sql');
    cpSync(sqlDir(), sql, { recursive: true });
    const path = join(dir, 'm.duckdb');
    (await openTracked(path, { sqlDir: sql })).close();

    writeFileSync(
      join(sql, 'schema', '100_extra.sql'),
      'CREATE TABLE extra (a INTEGER); INSERT INTO extra VALUES (7);',
    );
    writeFileSync(
      join(sql, 'schema', '101_broken.sql'),
      'CREATE TABLE half_done (a INTEGER); SELECT * FROM no_such_table;',
    );
    const err = await openDatabase(path, { sqlDir: sql }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect((err as Error).message).toContain('101_broken.sql');

    const db = await openTracked(path, { readOnly: true });
    const versions = await queryRows(db.connection, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((r) => r['version'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 100]);
    expect(await queryRows(db.connection, 'SELECT a FROM extra')).toEqual([{ a: 7 }]);
    const halfDone = await queryRows(
      db.connection,
      "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'half_done'",
    );
    expect(halfDone).toEqual([{ n: 0 }]);
  });

  it('keeps every window of a schema-2 database as a visitors window of one day, keyed by stream (schema 3)', async () => {
    const v2 = join(dir, 'sql-v2');
    cpSync(sqlDir(), v2, { recursive: true });
    for (const name of readdirSync(join(v2, 'schema'))) {
      if (!/^00[12]_/.test(name)) rmSync(join(v2, 'schema', name));
    }
    // Today's views need today's tables; the old database only has to hold the old rows.
    rmSync(join(v2, 'views'), { recursive: true });
    const path = join(dir, 'v2.duckdb');
    const old = await openTracked(path, { sqlDir: v2 });
    await old.connection.run(
      `INSERT INTO sync_windows VALUES
         ('p1', DATE '2024-03-01', 'loaded', 2, 300, 40, 1, '2024-03-05 02:00:00+00', 'r1', NULL),
         ('p1', DATE '2024-03-02', 'failed', 0, 0, NULL, 6, '2024-03-05 02:00:00+00', 'r1', 'HTTP 500');
       INSERT INTO sync_runs (run_id, project_ids, started_at, status) VALUES ('r1', ['p1'], now(), 'succeeded');`,
    );
    old.close();

    const db = await openTracked(path);
    expect(
      await queryRows(
        db.connection,
        'SELECT project_id, stream, window_start, window_end, status, pages, rows, truncated, error FROM sync_windows ORDER BY ALL',
      ),
    ).toEqual([
      {
        project_id: 'p1',
        stream: 'visitors',
        window_start: '2024-03-01',
        window_end: '2024-03-02',
        status: 'loaded',
        pages: 2,
        rows: 300,
        truncated: false,
        error: null,
      },
      {
        project_id: 'p1',
        stream: 'visitors',
        window_start: '2024-03-02',
        window_end: '2024-03-03',
        status: 'failed',
        pages: 0,
        rows: 0,
        truncated: false,
        error: 'HTTP 500',
      },
    ]);
    expect(await queryRows(db.connection, 'SELECT streams FROM sync_runs')).toEqual([
      { streams: ['visitors'] },
    ]);
    // The key now includes the stream: the same day of another stream is another window.
    await db.connection.run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, attempts, fetched_at, run_id)
       VALUES ('p1', 'views', DATE '2024-03-01', DATE '2024-03-02', 'loaded', 1, 1, 1, now(), 'r2')`,
    );
    await expect(
      db.connection.run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, attempts, fetched_at, run_id)
         VALUES ('p1', 'views', DATE '2024-03-01', DATE '2024-03-02', 'loaded', 1, 1, 1, now(), 'r3')`,
      ),
    ).rejects.toThrow(/Constraint Error|duplicate key/i);
  });

  it('renames the ledger column "at" (a DuckDB keyword) to requested_at in a database made by schema 1, keeping its rows', async () => {
    const v1 = join(dir, 'sql-v1');
    cpSync(sqlDir(), v1, { recursive: true });
    for (const name of readdirSync(join(v1, 'schema'))) {
      if (!name.startsWith('001_')) rmSync(join(v1, 'schema', name));
    }
    rmSync(join(v1, 'views'), { recursive: true });
    const path = join(dir, 'v1.duckdb');
    const old = await openTracked(path, { sqlDir: v1 });
    await old.connection.run(
      `INSERT INTO api_requests VALUES
         ('2024-03-10 10:00:00.123+00', 1, 'visitors', 'p1', 200, 120, 'r1'),
         ('2024-03-10 10:00:00.123+00', 2, 'visitors', null, null, 30000, null)`,
    );
    old.close();

    const db = await openTracked(path);
    const versions = await queryRows(db.connection, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((r) => r['version'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(
      await queryRows(
        db.connection,
        'SELECT requested_at, seq, endpoint, project_id, status, duration_ms, run_id FROM api_requests ORDER BY seq',
      ),
    ).toEqual([
      {
        requested_at: '2024-03-10T10:00:00.123Z',
        seq: 1,
        endpoint: 'visitors',
        project_id: 'p1',
        status: 200,
        duration_ms: 120,
        run_id: 'r1',
      },
      {
        requested_at: '2024-03-10T10:00:00.123Z',
        seq: 2,
        endpoint: 'visitors',
        project_id: null,
        status: null,
        duration_ms: 30000,
        run_id: null,
      },
    ]);
    const columns = await queryRows(
      db.connection,
      "SELECT column_name FROM duckdb_columns() WHERE table_name = 'api_requests' ORDER BY column_index",
    );
    expect(columns.map((r) => r['column_name'])).toEqual([
      'requested_at',
      'seq',
      'endpoint',
      'project_id',
      'status',
      'duration_ms',
      'run_id',
      // Schema 8: whose budget a request spent; NULL in the rows written before (they count for all).
      'budget_scope',
    ]);
  });

  it('refuses a database migrated by a newer mintlify-etl', async () => {
    const path = join(dir, 'new.duckdb');
    const db = await openTracked(path);
    await db.connection.run('INSERT INTO schema_migrations VALUES (999, now())');
    db.close();
    const err = await openDatabase(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/schema version 999, newer than this mintlify-etl knows \(13\)/);
  });

  it('lets go of the file on close, so another process can open it at once', async () => {
    const path = join(dir, 'c.duckdb');
    const db = await openTracked(path);
    expect(await ask({ open: path })).toMatch(/^error IO Error: Could not set lock on file/);
    db.close();
    expect(await ask({ open: path })).toBe('opened');
  });
});

describe('openDatabase (read-only)', () => {
  it('refuses a missing file with a usage error that says to sync first', async () => {
    const path = join(dir, 'missing.duckdb');
    const err = await openDatabase(path, { readOnly: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as Error).message).toBe(
      `no database at ${path}: run \`mintlify-etl sync\` first (or pass --db)`,
    );
    expect(existsSync(path)).toBe(false);
  });

  it('opens without migrating and refuses writes', async () => {
    const path = join(dir, 'bare.duckdb');
    const raw = await DuckDBInstance.create(path);
    raw.closeSync();
    const db = await openTracked(path, { readOnly: true });
    expect(db.readOnly).toBe(true);
    expect(await queryRows(db.connection, 'SELECT count(*) AS n FROM duckdb_tables()')).toEqual([{ n: 0 }]);
    await expect(db.connection.run('CREATE TABLE t (a INTEGER)')).rejects.toThrow(/read-only/i);
  });

  it('lets two read-only opens share the file', async () => {
    const path = join(dir, 'shared.duckdb');
    (await openTracked(path)).close();
    const a = await openTracked(path, { readOnly: true });
    expect(await ask({ open: path, readOnly: true })).toBe('opened');
    expect(await queryRows(a.connection, 'SELECT count(*) AS n FROM site_daily')).toEqual([{ n: 0 }]);
  });
});

describe('openDatabase while another process holds the file', () => {
  it('retries for busyTimeoutMs, then fails with DatabaseInUseError naming the pid', async () => {
    const path = join(dir, 'held.duckdb');
    (await openTracked(path)).close();
    expect(await ask({ open: path })).toBe('opened');

    for (const readOnly of [false, true]) {
      const started = Date.now();
      const err = await openDatabase(path, { readOnly, busyTimeoutMs: 400 }).catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect(err).toBeInstanceOf(DatabaseInUseError);
      expect((err as DatabaseInUseError).exitCode).toBe(5);
      expect((err as Error).message).toContain(
        `database ${path} is open in another process (pid ${child.pid})`,
      );
      expect((err as DatabaseInUseError).context['pid']).toBe(child.pid);
      expect((err as Error).cause).toBeInstanceOf(Error);
      // It waited the whole timeout, then gave up (an open that never gave up would time the test out).
      expect(waited).toBeGreaterThanOrEqual(400);
      expect((err as Error).message).toContain('gave up after 400 ms');
    }
  });

  it('gets the file once the other process lets go within the timeout', async () => {
    const path = join(dir, 'released.duckdb');
    (await openTracked(path)).close();
    expect(await ask({ open: path })).toBe('opened');
    expect(await ask({ close: true, afterMs: 300 })).toBe('closing');
    const db = await openTracked(path, { busyTimeoutMs: 10_000 });
    expect(await queryRows(db.connection, 'SELECT count(*) AS n FROM site_daily')).toEqual([{ n: 0 }]);
  });
});

describe('lockHolder', () => {
  it("reads the pid out of DuckDB's lock message", () => {
    const msg =
      'IO Error: Could not set lock on file "/x/a.duckdb": Conflicting lock is held in /usr/bin/node (PID 3543). See also https://duckdb.org/docs/stable/connect/concurrency';
    expect(lockHolder(new Error(msg))).toEqual({ locked: true, pid: 3543 });
    expect(lockHolder(new Error('IO Error: Cannot open file "/x": Permission denied'))).toEqual({
      locked: false,
      pid: undefined,
    });
  });
});

describe('queryRows', () => {
  it('returns JSON-friendly values: safe integers as numbers, DATE as YYYY-MM-DD, TIMESTAMPTZ as ISO UTC', async () => {
    const db = await openTracked(join(dir, 'q.duckdb'));
    // Whatever zone a session sets, the ISO string is UTC.
    await db.connection.run("SET TimeZone = 'America/New_York'");
    const r = await queryRows(
      db.connection,
      `SELECT 42::BIGINT AS small, 9007199254740993::BIGINT AS big, 12::HUGEINT AS huge, sum(x) AS summed,
              DATE '2024-02-29' AS d, TIMESTAMPTZ '2024-03-10 01:02:03.456+00' AS tz,
              TIMESTAMP '2024-03-10 01:02:03' AS ts, [DATE '2024-01-01', NULL] AS days,
              {'n': 7::BIGINT, 'day': DATE '2024-01-02'} AS s, 0.25::DOUBLE AS f, 'x' AS v, NULL AS nothing,
              1.5::DECIMAL(4,1) AS dec
       FROM range(3) t(x) WHERE x > $1`,
      [0],
    );
    expect(r).toEqual([
      {
        small: 42,
        big: '9007199254740993',
        huge: 12,
        summed: 3,
        d: '2024-02-29',
        tz: '2024-03-10T01:02:03.456Z',
        ts: '2024-03-10T01:02:03.000',
        days: ['2024-01-01', null],
        s: { n: 7, day: '2024-01-02' },
        f: 0.25,
        v: 'x',
        nothing: null,
        dec: 1.5,
      },
    ]);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
});
