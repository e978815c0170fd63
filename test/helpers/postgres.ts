import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Set (to 1) where PostgreSQL tests must run: CI. Without it a machine lacking the binaries skips them. */
export const REQUIRE_POSTGRES_ENV = 'MINTLIFY_ETL_REQUIRE_POSTGRES';

const DEBIAN_ROOT = '/usr/lib/postgresql';

/** Debian's server binaries (`/usr/lib/postgresql/<version>/bin`), newest version first; undefined when absent. */
export function postgresBinDir(root = DEBIAN_ROOT): string | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions
    .map((v) => join(root, v, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl')));
}

/**
 * Whether this file's PostgreSQL tests can run. Without the binaries: false after one line saying
 * how to install them, or a thrown error when the environment requires PostgreSQL (CI never skips).
 */
export function hasPostgres(
  env: NodeJS.ProcessEnv = process.env,
  root = DEBIAN_ROOT,
  say: (line: string) => void = console.warn,
): boolean {
  if (postgresBinDir(root)) return true;
  const how = `PostgreSQL server binaries not found in ${root}/<version>/bin (install: apt-get install postgresql)`;
  if (env[REQUIRE_POSTGRES_ENV] === '1') throw new Error(`${how}; ${REQUIRE_POSTGRES_ENV}=1 requires them`);
  say(`skipping the PostgreSQL tests: ${how}`);
  return false;
}

export interface PostgresServer {
  /** postgresql://postgres@127.0.0.1:PORT/DB, trust auth on loopback (no password). */
  readonly url: string;
  readonly port: number;
  /** The database of the url: the test's own (on a shared server, not named TEST_DATABASE). */
  readonly database: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, every server command runs as the `postgres` user. */
function asServerUser(bin: string, args: readonly string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, [...args]];
}

async function serverCommand(bin: string, args: readonly string[], cwd: string): Promise<void> {
  const [cmd, argv] = asServerUser(bin, args);
  try {
    await run(cmd, argv, { cwd });
  } catch (e) {
    const err = e as Error & { stderr?: string; stdout?: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${err.stderr ?? ''}${err.stdout ?? ''}`, { cause: e });
  }
}

/** A temp folder the server user owns (as root: chowned to `postgres`). */
function serverFolder(parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'mintlify-etl-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

// Durability is worthless for a throwaway test server; these make start, DDL and COPY fast.
const FAST = [
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'wal_level=minimal',
  'max_wal_senders=0',
  'shared_buffers=32MB',
  'max_connections=20',
  'TimeZone=UTC',
];

/** Where the vitest global setup left a ready data folder (see test/helpers/pg-template.ts). */
export const PG_TEMPLATE_ENV = 'MINTLIFY_ETL_TEST_PG_TEMPLATE';

/** The database every test server holds unless asked for another (the template has it made). */
export const TEST_DATABASE = 'mintlify_test';

const INITDB_ARGS = [
  '-U',
  'postgres',
  '--auth=trust',
  '-E',
  'UTF8',
  '--locale=C.UTF-8',
  '--no-sync',
  '--no-instructions',
];

function serverOptions(port: number, dir: string): string {
  return [`-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", ...FAST.map((o) => `-c ${o}`)].join(
    ' ',
  );
}

/** A data folder made by the global setup, when there is one (else every server runs initdb). */
function templateData(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const data = env[PG_TEMPLATE_ENV];
  return data !== undefined && data !== '' && existsSync(join(data, 'PG_VERSION')) ? data : undefined;
}

/**
 * Fills `data` with a fresh cluster: a copy of the global setup's template (initdb once per run,
 * not once per file: initdb is the slow part of a start) or, without one, initdb itself.
 * Returns whether the copy already holds the test database.
 */
async function makeCluster(bin: string, data: string, dir: string): Promise<boolean> {
  const template = templateData();
  if (template !== undefined) {
    // cp -a keeps the postgres owner and the 0700 mode the server insists on.
    await run('cp', ['-a', template, data]);
    return true;
  }
  await serverCommand(join(bin, 'initdb'), ['-D', data, ...INITDB_ARGS], dir);
  return false;
}

async function startCluster(bin: string, data: string, dir: string, port: number): Promise<void> {
  await serverCommand(
    join(bin, 'pg_ctl'),
    ['start', '-w', '-s', '-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions(port, dir)],
    dir,
  );
}

/**
 * Starts a private PostgreSQL server: a fresh cluster in a temp folder (copied from the run's
 * template, else initdb), pg_ctl start on a free 127.0.0.1 port with the unix socket in that
 * folder, trust auth, one database. `stop()` shuts it down (immediate shutdown, folder removed).
 * For a file that touches what a whole cluster shares (roles, other sessions' backends, the server
 * itself); any other file takes a database of its worker's server (startPostgres).
 */
export async function startPrivatePostgres(
  database = TEST_DATABASE,
  parent: string | undefined = undefined,
): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  const dir = serverFolder(parent);
  const data = join(dir, 'data');
  const port = await freePort();
  const stop = async (): Promise<void> => {
    await serverCommand(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-s'], dir).catch(
      () => {},
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const hasTestDb = await makeCluster(bin, data, dir);
    await startCluster(bin, data, dir, port);
    if (!(hasTestDb && database === TEST_DATABASE)) await createDatabase(port, database);
  } catch (e) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
    await stop();
    throw new Error(`could not start PostgreSQL: ${(e as Error).message}\n${log}`, { cause: e });
  }
  const server = { url: serverUrl(port, database), port, database, stop };
  DATA_FOLDERS.set(server, data);
  return server;
}

function serverUrl(port: number, database: string): string {
  return `postgresql://postgres@127.0.0.1:${port}/${database}`;
}

/** Where the global setup lets each worker keep its one server (removed at the run's end). */
export const PG_SHARED_ENV = 'MINTLIFY_ETL_TEST_PG_SHARED';

interface WorkerServer {
  readonly server: Promise<PostgresServer>;
  databases: number;
}

// On globalThis, not in this module: a worker that runs many files may load this module again.
const WORKER_SERVER = Symbol.for('mintlify-etl.test.pg-worker-server');
type WithWorkerServer = typeof globalThis & { [WORKER_SERVER]?: WorkerServer };

/** The worker's server, started by the first file that asks; stopped when the worker exits. */
function workerServer(parent: string): WorkerServer {
  const g = globalThis as WithWorkerServer;
  const known = g[WORKER_SERVER];
  if (known !== undefined) return known;
  const server = startPrivatePostgres(TEST_DATABASE, parent);
  const made: WorkerServer = { server, databases: 0 };
  g[WORKER_SERVER] = made;
  server.then(
    (s) => process.once('exit', () => stopNow(s)),
    () => {
      delete g[WORKER_SERVER];
    },
  );
  return made;
}

/** A worker exits without waiting for promises: the server goes down synchronously. */
function stopNow(server: PostgresServer): void {
  const bin = postgresBinDir();
  const data = dataFolderOf(server);
  if (bin === undefined || data === undefined) return;
  const [cmd, argv] = asServerUser(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-s']);
  try {
    execFileSync(cmd, argv, { stdio: 'ignore' });
  } catch {
    // Already down; the global teardown removes the folder either way.
  }
}

const DATA_FOLDERS = new WeakMap<PostgresServer, string>();
function dataFolderOf(server: PostgresServer): string | undefined {
  return DATA_FOLDERS.get(server);
}

/**
 * A PostgreSQL database of its own for one test file. Under vitest (the global setup ran) it is a
 * database on the worker's one server, made from the template database (CREATE DATABASE ...
 * TEMPLATE: a file copy, where a server of its own costs a cluster copy and a start), and
 * `stop()` drops it with every session still in it. The files of a worker run one after another,
 * so a file is alone on the server. Elsewhere (the benchmark): a private server.
 */
export async function startPostgres(database = TEST_DATABASE): Promise<PostgresServer> {
  const parent = process.env[PG_SHARED_ENV];
  if (parent === undefined || parent === '' || !existsSync(parent)) return startPrivatePostgres(database);
  const worker = workerServer(parent);
  const shared = await worker.server;
  worker.databases += 1;
  const name = `${database}_${process.pid}_${worker.databases}`;
  await adminQuery(shared.port, `CREATE DATABASE ${name} TEMPLATE ${TEST_DATABASE} STRATEGY FILE_COPY`);
  return {
    url: serverUrl(shared.port, name),
    port: shared.port,
    database: name,
    stop: () => adminQuery(shared.port, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(port: number, sql: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Stops (immediately) a server still running on the data folder `data`; nothing when none is. */
export async function stopServerIn(data: string): Promise<void> {
  const bin = postgresBinDir();
  if (bin === undefined || !existsSync(join(data, 'postmaster.pid'))) return;
  await serverCommand(
    join(bin, 'pg_ctl'),
    ['stop', '-D', data, '-m', 'immediate', '-s'],
    dirname(data),
  ).catch(() => {});
}

/**
 * Makes the run's template data folder: initdb, start, the test database created, a clean stop
 * (a checkpoint, so a copy starts without recovery). Returns its path and a remover.
 */
export async function makeTemplate(): Promise<{ data: string; remove: () => void }> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  const dir = serverFolder();
  const data = join(dir, 'data');
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    await serverCommand(join(bin, 'initdb'), ['-D', data, ...INITDB_ARGS], dir);
    const port = await freePort();
    await startCluster(bin, data, dir, port);
    try {
      await createDatabase(port, TEST_DATABASE);
    } finally {
      await serverCommand(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w', '-s'], dir);
    }
    rmSync(join(dir, 'server.log'), { force: true });
  } catch (e) {
    remove();
    throw e;
  }
  return { data, remove };
}

/**
 * The test database sorts text like a typical server (ICU, en-US) where ICU is built in, so a view
 * that forgets COLLATE "C" where DuckDB sorts by code point shows up as a different rank.
 */
async function createDatabase(port: number, name: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client
      .query(
        `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
      )
      .catch(() => client.query(`CREATE DATABASE ${name} TEMPLATE template0`));
  } finally {
    await client.end();
  }
}
