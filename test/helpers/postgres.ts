import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
function serverFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-pg-'));
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

/**
 * Starts a private PostgreSQL server: initdb into a fresh temp folder, pg_ctl start on a free
 * 127.0.0.1 port with the unix socket in that folder, trust auth, one database created. Start one
 * per test file (beforeAll) and `stop()` it after (immediate shutdown, folder removed).
 */
export async function startPostgres(database = 'mintlify_test'): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  const dir = serverFolder();
  const data = join(dir, 'data');
  const port = await freePort();
  const stop = async (): Promise<void> => {
    await serverCommand(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-s'], dir).catch(
      () => {},
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await serverCommand(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
        '--no-instructions',
      ],
      dir,
    );
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses='127.0.0.1'",
      ...FAST.map((o) => `-c ${o}`),
    ];
    await serverCommand(
      join(bin, 'pg_ctl'),
      ['start', '-w', '-s', '-D', data, '-l', join(dir, 'server.log'), '-o', opts.join(' ')],
      dir,
    );
    await createDatabase(port, database);
  } catch (e) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
    await stop();
    throw new Error(`could not start PostgreSQL: ${(e as Error).message}\n${log}`, { cause: e });
  }
  return { url: `postgresql://postgres@127.0.0.1:${port}/${database}`, port, stop };
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
