import pg from 'pg';
import { DestinationError, InternalError, isEtlError, UsageError } from '../../errors.js';
import { redactSecrets } from '../../util/secrets.js';
import { maskUserinfo } from '../../util/url-text.js';
import { describeWhere, type DbTarget } from '../target.js';
import type { SqlSession } from '../session.js';
import { migratePostgres } from './migrate.js';
import { quoteIdent } from '../quote-ident.js';
import { PLAIN_TYPES, pgSession } from './session.js';

export type PgTarget = Extract<DbTarget, { kind: 'postgres' }>;

/** An open PostgreSQL destination: one client, its session, set to the schema and to UTC. */
export interface PgDatabase {
  readonly kind: 'postgres';
  readonly target: PgTarget;
  readonly label: string;
  readonly client: pg.Client;
  readonly session: SqlSession;
  /** What opening it left undone and the user should hear (views kept for a reader, see migrate). */
  readonly notes: readonly string[];
  close(): Promise<void>;
}

export interface PgOpenOptions {
  /** Create the schema and apply migrations and views (writers); readers only check it exists. */
  readonly migrate?: boolean;
  /**
   * A session that writes (the sync's writer, its run records): the server ends it when it sits
   * inside a transaction saying nothing for the dead-client bound, so that a run whose machine
   * died mid-transaction (a window load, a migration) leaves no row or schema lock behind.
   * Readers are left alone: a user may page through `query` output as slowly as they like.
   */
  readonly writes?: boolean;
  /** Bound on reaching the server and logging in (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Shown in pg_stat_activity, so a DBA can tell what a session is. */
  readonly applicationName?: string;
  /** Test seam: the folder holding schema/ and views/. */
  readonly sqlDir?: string;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Every lock wait of a run's sessions is bounded: a row or table another session holds (a DBA's
 * VACUUM FULL, a dashboard's transaction under a migration) fails the statement after this long
 * instead of hanging the run, and a waiting request never queues readers behind it for longer.
 * Schema changes wait far less (migrate.ts, DDL_LOCK_TIMEOUT_MS).
 */
export const LOCK_TIMEOUT_MS = 30_000;

/** Tests shorten the lock bound (a real wait of 30 s each would only slow them down). */
export const LOCK_TIMEOUT_ENV = 'MINTLIFY_ETL_PG_LOCK_TIMEOUT_MS';

export function lockTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[LOCK_TIMEOUT_ENV]);
  return Number.isFinite(n) && n >= 100 ? Math.round(n) : LOCK_TIMEOUT_MS;
}

/**
 * How soon the server should notice that a run's machine died or its network went away (default
 * two minutes): TCP keepalives on each of the run's connections, and the lock's connection is
 * ended by the server when it has said nothing for this long (lock.ts), so its advisory locks do
 * not outlive the run by the two hours of the system's keepalive defaults. The environment
 * variable is a seam for tests, which cut a connection and wait for the bound.
 */
export const DEAD_CLIENT_ENV = 'MINTLIFY_ETL_PG_DEAD_CLIENT_MS';
export const DEFAULT_DEAD_CLIENT_MS = 120_000;

export function deadClientMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[DEAD_CLIENT_ENV]);
  return Number.isFinite(n) && n >= 1000 ? Math.round(n) : DEFAULT_DEAD_CLIENT_MS;
}

/**
 * The session settings of every connection: ISO dates in UTC (what PLAIN_TYPES parses), the lock
 * bound, and server-side keepalives adding up to the dead-client bound (idle half of it, then four
 * probes over the other half). The server ignores the keepalive settings on a Unix socket.
 */
function sessionSettings(boundMs: number, writes: boolean): string {
  const idle = Math.max(1, Math.floor(boundMs / 2000));
  const interval = Math.max(1, Math.floor(boundMs / 8000));
  return [
    "SET DateStyle TO 'ISO, YMD'",
    "SET TimeZone TO 'UTC'",
    `SET lock_timeout TO ${lockTimeoutMs()}`,
    `SET tcp_keepalives_idle TO ${idle}`,
    `SET tcp_keepalives_interval TO ${interval}`,
    'SET tcp_keepalives_count TO 4',
    ...(writes ? [`SET idle_in_transaction_session_timeout TO ${boundMs}`] : []),
  ].join('; ');
}

/**
 * The URL as pg reads it without its multi-line "SECURITY WARNING" on the user's terminal: pg 8
 * already treats sslmode=prefer, require and verify-ca as verify-full (it verifies the server's
 * certificate and name) and says so on every run. Spelling out what it does keeps that meaning
 * exactly, silently; docs/warehouse.md says it. `uselibpqcompat=true` asks for libpq's weaker
 * meaning and is left to pg.
 */
export function pgConnectionString(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const mode = parsed.searchParams.get('sslmode');
  if (mode === null || !['prefer', 'require', 'verify-ca'].includes(mode)) return url;
  if (parsed.searchParams.get('uselibpqcompat') === 'true') return url;
  parsed.searchParams.set('sslmode', 'verify-full');
  return parsed.toString();
}

/** A new client for the target (not connected): plain value parsing, bounded connect. */
export function newClient(target: PgTarget, opts: PgOpenOptions = {}): pg.Client {
  const client = new pg.Client({
    connectionString: pgConnectionString(target.url),
    types: PLAIN_TYPES,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    application_name: opts.applicationName ?? 'mintlify-etl',
    // This side notices a server that went away (no answer to its probes), not only the server.
    keepAlive: true,
    keepAliveInitialDelayMillis: Math.floor(deadClientMs() / 2),
  });
  // A server that goes away between statements emits 'error' on the client; without a listener
  // node would crash. The next statement fails and says so.
  client.on('error', () => undefined);
  return client;
}

const REACH_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/**
 * One line for a failure to reach, log in to, or use the destination: what happened, where (host,
 * port, database, user; never the password) and what to do. Undefined for other errors.
 */
export function destinationError(e: unknown, target: PgTarget): DestinationError | undefined {
  const err = e as { code?: string; message?: string };
  const where = describeWhere(target.where);
  const said = redactSecrets(maskUserinfo(String(err.message ?? e).split('\n', 1)[0] ?? ''));
  const make = (what: string, fix: string): DestinationError =>
    new DestinationError(
      `${what} (${where}): ${said}; ${fix}`,
      { ...target.where, schema: target.schema, pgCode: err.code },
      { cause: e },
    );
  const code = err.code ?? '';
  if (REACH_CODES.has(code) || /timeout|terminated unexpectedly|connection terminated/i.test(said))
    return make(
      'cannot reach PostgreSQL',
      'check the host and port in --db (or MINTLIFY_ETL_DB) and that the server is running and accepts connections from this machine',
    );
  if (code === '28P01' || code === '28000' || /password|SASL|authentication/i.test(said))
    return make(
      'PostgreSQL refused the login',
      "check the user and the password (in the URL, PGPASSWORD or ~/.pgpass) and the server's pg_hba.conf",
    );
  if (code === '3D000')
    return make('the database does not exist', 'create it (createdb) or fix the database name in --db');
  if (code === '42501')
    return make(
      `the user lacks a right mintlify-etl needs in schema ${target.schema}`,
      `grant it (e.g. GRANT CREATE ON DATABASE ${target.where.database} TO ${target.where.user}; or create the schema ${target.schema} and GRANT ALL ON SCHEMA ${target.schema} TO ${target.where.user}), or pick another schema with --schema`,
    );
  if (/SSL|certificate|self.signed/i.test(said))
    return make(
      'the TLS connection failed',
      "check sslmode= in the URL (e.g. sslmode=require or disable) and the server's certificate",
    );
  if (code.startsWith('08') || code === '57P03' || code === '53300')
    return make(
      'PostgreSQL would not take the connection',
      "try again later, or ask the server's administrator",
    );
  return undefined;
}

/**
 * The driver reads the files that sslrootcert=, sslcert= and sslkey= name when it is given the
 * URL: a path that is not there (or not readable) is the user's to fix, not an internal error.
 */
function unreadableSslFile(e: unknown, target: PgTarget): DestinationError | undefined {
  const err = e as { code?: string; path?: string };
  if (err.path === undefined || !['ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR'].includes(err.code ?? ''))
    return undefined;
  let param = 'sslrootcert';
  try {
    const q = new URL(target.url).searchParams;
    param = ['sslrootcert', 'sslcert', 'sslkey'].find((p) => q.get(p) === err.path) ?? param;
  } catch {
    // The URL was read before: keep the likeliest name.
  }
  const what =
    param === 'sslrootcert'
      ? "the server's CA certificate (PEM)"
      : param === 'sslcert'
        ? "this client's certificate (PEM)"
        : "this client's private key (readable by this user only)";
  return new DestinationError(
    `the ${param} file ${err.path} in --db cannot be read (${err.code ?? 'error'}; ${describeWhere(target.where)}): give the path of ${what}, or leave ${param} out of the URL`,
    { ...target.where, schema: target.schema, param },
    { cause: e },
  );
}

/** What a failure to open the destination says: its own line, or one naming where (never how). */
function openFailure(e: unknown, target: PgTarget): Error {
  if (isEtlError(e)) return e;
  return (
    unreadableSslFile(e, target) ??
    destinationError(e, target) ??
    new InternalError(
      `opening ${target.label} failed: ${redactSecrets(maskUserinfo((e as Error).message))}`,
      { ...target.where },
      { cause: e },
    )
  );
}

/**
 * A client of the target that has reached the server and logged in, reading dates and times in
 * ISO form and in UTC (what PLAIN_TYPES parses). A failure is one line (see destinationError).
 */
export async function connectClient(target: PgTarget, opts: PgOpenOptions = {}): Promise<pg.Client> {
  let client: pg.Client;
  try {
    client = newClient(target, opts);
  } catch (e) {
    throw openFailure(e, target);
  }
  try {
    await client.connect();
    await client.query(sessionSettings(deadClientMs(), opts.writes === true));
    return client;
  } catch (e) {
    await client.end().catch(() => undefined);
    throw openFailure(e, target);
  }
}

/**
 * Connects to the target: reaches the server, logs in, and (writers) creates the schema and
 * migrates it, or (readers) checks that the schema holds mintlify-etl's tables. Every failure of
 * the destination is one DestinationError line (exit 2).
 */
export async function openPostgres(target: PgTarget, opts: PgOpenOptions = {}): Promise<PgDatabase> {
  const client = await connectClient(target, opts);
  let notes: readonly string[] = [];
  try {
    await checkSchemaRights(client, target, opts.migrate === true || opts.writes === true);
    if (opts.migrate === true)
      ({ notes } = await migratePostgres(client, {
        schema: target.schema,
        label: target.database,
        ...(opts.sqlDir !== undefined ? { sqlDir: opts.sqlDir } : {}),
      }));
    else await enterSchema(client, target);
  } catch (e) {
    await client.end().catch(() => undefined);
    throw openFailure(e, target);
  }
  let closed = false;
  return {
    kind: 'postgres',
    target,
    label: target.label,
    client,
    session: pgSession(client, target.label),
    notes,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * A schema the user may not use is invisible to it: search_path skips it and information_schema
 * hides its tables, so without this the user would read "no schema has been selected to create in"
 * or "no mintlify-etl tables". Readers need USAGE, writers USAGE and CREATE (migrations, views).
 */
async function checkSchemaRights(client: pg.ClientBase, target: PgTarget, writes: boolean): Promise<void> {
  const r = await client.query<{ usage: boolean; create: boolean }>(
    `SELECT has_schema_privilege(n.oid, 'USAGE') AS usage, has_schema_privilege(n.oid, 'CREATE') AS create
     FROM pg_namespace n WHERE n.nspname = $1`,
    [target.schema],
  );
  const rights = r.rows[0];
  if (rights === undefined || (rights.usage && (rights.create || !writes))) return;
  const { user } = target.where;
  const ident = (n: string): string => (/^[a-z_][a-z0-9_$]*$/.test(n) ? n : quoteIdent(n));
  const missing = [!rights.usage ? 'USAGE' : '', writes && !rights.create ? 'CREATE' : ''].filter(Boolean);
  throw new DestinationError(
    `the user lacks a right mintlify-etl needs in schema ${target.schema} (${describeWhere(target.where)}): it has no ${missing.join(' or ')} on it; ask its owner to GRANT ${writes ? 'USAGE, CREATE' : 'USAGE'} ON SCHEMA ${ident(target.schema)} TO ${ident(user)}${writes ? '' : ' (and SELECT ON ALL TABLES IN SCHEMA)'}, or pick another schema with --schema`,
    { ...target.where, schema: target.schema, missing },
  );
}

async function holdsTables(client: pg.ClientBase, schema: string): Promise<boolean> {
  const found = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'sync_windows'",
    [schema],
  );
  return (found.rows[0]?.n ?? 0) > 0;
}

/** Whether the target's schema holds mintlify-etl's tables; a server that cannot be used throws. */
export async function schemaHasTables(target: PgTarget, opts: PgOpenOptions = {}): Promise<boolean> {
  const client = await connectClient(target, opts);
  try {
    return await holdsTables(client, target.schema);
  } catch (e) {
    throw openFailure(e, target);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A reader's session: the schema must exist and hold the tables (a sync made it). */
async function enterSchema(client: pg.Client, target: PgTarget): Promise<void> {
  if (!(await holdsTables(client, target.schema))) {
    throw new UsageError(
      `no mintlify-etl tables in schema ${target.schema} of ${target.database}: run \`mintlify-etl sync --db <the same URL>\` first, or pick the schema it used with --schema`,
      { ...target.where, schema: target.schema },
    );
  }
  await client.query(`SET search_path TO ${quoteIdent(target.schema)}`);
}
