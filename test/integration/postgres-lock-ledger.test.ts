import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseInUseError } from '../../src/errors.js';
import { UNANSWERED_MS } from '../../src/load/duckdb/ledger-journal.js';
import { PENDING_SEQ_BASE, PgRequestLedger } from '../../src/load/postgres/ledger.js';
import {
  acquireProjectLocks,
  heldProjects,
  projectLockKey,
  type ProjectLock,
} from '../../src/load/postgres/lock.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import { readLedgerSince, readRecentRuns, startRun, type LedgerRow } from '../../src/load/runs.js';
import { isoTime, type SqlSession } from '../../src/load/session.js';
import { hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * The PostgreSQL destination's run-level state: advisory locks per project (a second run of one
 * project is refused, other projects go ahead, a dead process frees its locks with its
 * connection), and the request ledger written as requests go, so a kill loses none of them.
 */

const PG = hasPostgres();
const SCHEMA = 'lock test';
let server: PostgresServer;
let admin: pg.Client;
const opened: pg.Client[] = [];

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
  await c.connect();
  opened.push(c);
  return c;
}

/** A client of the destination's schema, as a run would have. */
async function schemaClient(): Promise<pg.Client> {
  const c = await connect();
  await migratePostgres(c, { schema: SCHEMA });
  return c;
}

/** What a process dying does to its connection: the socket closes under the client, no goodbye. */
function killSocket(c: pg.Client): void {
  c.on('error', () => undefined);
  (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

async function backendPid(c: pg.Client): Promise<number> {
  return (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
}

/** Waits (on the server, no polling) until nobody holds the project's lock, then lets it go. */
async function waitUntilFree(schema: string, projectId: string): Promise<void> {
  const key = projectLockKey(schema, projectId).toString();
  const c = await connect();
  try {
    await c.query('SET statement_timeout = 20000');
    await c.query('SELECT pg_advisory_lock($1::bigint)', [key]);
    await c.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  if (!PG) return;
  server = await startPrivatePostgres();
  admin = await schemaClient();
}, 120_000);

afterAll(async () => {
  for (const c of opened) await c.end().catch(() => undefined);
  await server?.stop();
});

describe.skipIf(!PG)('advisory locks per project', () => {
  const held: ProjectLock[] = [];
  const lock = async (projectIds: string[], schema = SCHEMA): Promise<ProjectLock> => {
    const l = await acquireProjectLocks({
      connect,
      schema,
      projectIds,
      label: 'postgresql://postgres@127.0.0.1/mintlify_test',
    });
    held.push(l);
    return l;
  };
  const refused = async (projectIds: string[]): Promise<DatabaseInUseError> => {
    const err = await lock(projectIds).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    return err as DatabaseInUseError;
  };

  beforeEach(async () => {
    for (const l of held.splice(0)) await l.release();
  });

  it('derives one key per schema and project, the same every time', () => {
    expect(projectLockKey('mintlify', 'docs')).toBe(projectLockKey('mintlify', 'docs'));
    expect(projectLockKey('mintlify', 'docs')).not.toBe(projectLockKey('other', 'docs'));
    expect(projectLockKey('mintlify', 'docs')).not.toBe(projectLockKey('mintlify', 'docs2'));
    expect(projectLockKey('a', 'b\0c')).not.toBe(projectLockKey('a\0b', 'c'));
  });

  it('refuses a second run of the same project (exit 5), naming the project, the schema and the holder', async () => {
    const first = await lock(['docs-a', 'docs-b']);
    expect(first.path).toBe('schema lock test, projects docs-a, docs-b');
    const holder = await backendPid(opened.at(-1) as pg.Client);
    const err = await refused(['docs-b']);
    expect(err.exitCode).toBe(5);
    expect(err.message).toMatch(
      /^project docs-b is being synced into schema lock test of postgresql:\/\/postgres@127\.0\.0\.1\/mintlify_test by another run \(server process \d+/,
    );
    expect(err.message).toContain(`server process ${holder}`);
    expect(err.message).toContain('wait for it, or sync other projects meanwhile');
    expect(err.message).toContain(`SELECT pg_terminate_backend(${holder})`);
    expect(err.context).toMatchObject({ schema: SCHEMA, projectId: 'docs-b', holderPid: holder });
  });

  it('lets runs of other projects, or of the same project into another schema, lock at once', async () => {
    await lock(['docs-a']);
    await expect(lock(['docs-c', 'docs-d'])).resolves.toMatchObject({ projectIds: ['docs-c', 'docs-d'] });
    await expect(lock(['docs-a'], 'other_schema')).resolves.toMatchObject({ schema: 'other_schema' });
  });

  it('lets go of the projects it took when one of them is held elsewhere, and of its connection', async () => {
    await lock(['docs-b']);
    const before = opened.length;
    await refused(['docs-a', 'docs-b']);
    const refusedClient = opened[before] as pg.Client;
    // Its connection was closed: nothing of the refused run stays on the server.
    await expect(refusedClient.query('SELECT 1')).rejects.toThrow();
    await expect(lock(['docs-a'])).resolves.toBeDefined();
  });

  it('tells which projects a run is syncing now, for status', async () => {
    await lock(['docs-a', 'docs-b']);
    await lock(['docs-a'], 'other_schema');
    expect(await heldProjects(admin, SCHEMA, ['docs-a', 'docs-b', 'docs-c'])).toEqual(
      new Set(['docs-a', 'docs-b']),
    );
    expect(await heldProjects(admin, 'other_schema', ['docs-a', 'docs-b'])).toEqual(new Set(['docs-a']));
  });

  it('frees the projects on release (twice is harmless)', async () => {
    const first = await lock(['docs-a']);
    await first.release();
    await first.release();
    await expect(lock(['docs-a'])).resolves.toBeDefined();
  });

  it('frees the projects when the holding process dies: its connection drops', async () => {
    await lock(['docs-a', 'docs-b']);
    killSocket(opened.at(-1) as pg.Client);
    await waitUntilFree(SCHEMA, 'docs-a');
    await waitUntilFree(SCHEMA, 'docs-b');
    await expect(lock(['docs-a', 'docs-b'])).resolves.toBeDefined();
  });

  it('frees the projects when the server ends the holder, and tells the holder its lock is lost', async () => {
    const lost: Error[] = [];
    let lockClient: pg.Client | undefined;
    const l = await acquireProjectLocks({
      connect: async () => (lockClient = await connect()),
      schema: SCHEMA,
      projectIds: ['docs-a'],
      onLost: (e) => lost.push(e),
    });
    held.push(l);
    const pid = await backendPid(lockClient as pg.Client);
    const ended = new Promise((resolve) => (lockClient as pg.Client).once('end', resolve));
    await admin.query('SELECT pg_terminate_backend($1::integer, 20000)', [pid]);
    await ended;
    expect(lost).toHaveLength(1);
    await expect(lock(['docs-a'])).resolves.toBeDefined();
  });
});

describe.skipIf(!PG)('the request ledger written as requests go', () => {
  const T0 = Date.parse('2024-03-10T10:00:00.000Z');
  let reader: SqlSession;

  const answer = (at: number, seq: number, over: Partial<LedgerRow> = {}): LedgerRow => ({
    at,
    seq,
    endpoint: 'views',
    projectId: 'docs-a',
    status: 200,
    durationMs: 150,
    runId: 'run-1',
    ...over,
  });

  beforeAll(() => {
    if (PG) reader = pgSession(admin);
  });

  beforeEach(async () => {
    await reader.run('DELETE FROM api_requests');
    await reader.run('DELETE FROM sync_runs');
  });

  it('records a granted request at once, counted as answered later, before it is sent', async () => {
    const ledger = new PgRequestLedger(pgSession(await schemaClient()), {
      runId: 'run-1',
      budgetScope: 'acme',
    });
    await ledger.granted(T0);
    // Another connection sees it: it is committed, whatever happens to this process next.
    expect(await readLedgerSince(reader, T0, { budgetScope: 'acme' })).toEqual([T0 + UNANSWERED_MS]);
    expect(await readLedgerSince(reader, T0, { budgetScope: 'other' })).toEqual([]);
    expect(await reader.rows('SELECT endpoint, status, run_id, budget_scope FROM api_requests')).toEqual([
      { endpoint: 'visitors', status: null, run_id: 'run-1', budget_scope: 'acme' },
    ]);
  });

  it('replaces the pending row by the answered one, and removes it for a request that never left', async () => {
    const ledger = new PgRequestLedger(pgSession(await schemaClient()), {
      runId: 'run-1',
      budgetScope: 'acme',
    });
    await ledger.granted(T0);
    await ledger.granted(T0 + 10);
    ledger.answered(answer(T0, 0));
    ledger.refunded(T0 + 10);
    await ledger.flush();
    expect(
      await reader.rows(
        'SELECT requested_at, seq, endpoint, project_id, status, duration_ms, run_id, budget_scope FROM api_requests',
      ),
    ).toEqual([
      {
        requested_at: isoTime(T0),
        seq: 0,
        endpoint: 'views',
        project_id: 'docs-a',
        status: 200,
        duration_ms: 150,
        run_id: 'run-1',
        budget_scope: 'acme',
      },
    ]);
  });

  it('leaves the latest grants pending when answers come out of order', async () => {
    const ledger = new PgRequestLedger(pgSession(await schemaClient()), { runId: 'run-1' });
    await ledger.granted(T0);
    await ledger.granted(T0 + 1_000);
    await ledger.granted(T0 + 2_000);
    // The request granted last is answered at a time that matches no grant exactly.
    ledger.answered(answer(T0 + 2_003, 2));
    await ledger.flush();
    const pending = await reader.rows(
      `SELECT requested_at FROM api_requests WHERE seq >= ${PENDING_SEQ_BASE} ORDER BY requested_at`,
    );
    expect(pending).toEqual([{ requested_at: isoTime(T0 + 1_000) }, { requested_at: isoTime(T0 + 2_000) }]);
  });

  it('loses no request when the process is killed: the next run counts every one, its run too', async () => {
    const client = await schemaClient();
    const session = pgSession(client);
    await startRun(session, {
      runId: 'run-1',
      projectIds: ['docs-a'],
      dateFrom: null,
      dateTo: null,
      windowsPlanned: 3,
      plannedDays: [],
      startedAt: new Date(T0),
    });
    const ledger = new PgRequestLedger(session, { runId: 'run-1', budgetScope: 'acme' });
    await ledger.granted(T0);
    await ledger.granted(T0 + 5);
    await ledger.granted(T0 + 9);
    ledger.answered(answer(T0, 0));
    await ledger.flush();
    killSocket(client);
    expect(await readLedgerSince(reader, T0, { budgetScope: 'acme' })).toEqual([
      T0 + 150,
      T0 + 5 + UNANSWERED_MS,
      T0 + 9 + UNANSWERED_MS,
    ]);
    expect((await readRecentRuns(reader, 1))[0]?.requests).toBe(3);
  });

  it('reports a write that failed when flushed, and refuses a grant it cannot record', async () => {
    const client = await schemaClient();
    const ledger = new PgRequestLedger(pgSession(client), { runId: 'run-1' });
    await client.end();
    ledger.answered(answer(T0, 0));
    await expect(ledger.flush()).rejects.toThrow();
    await expect(ledger.granted(T0 + 1)).rejects.toThrow();
  });
});
