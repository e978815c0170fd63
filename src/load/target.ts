import { UsageError } from '../errors.js';
import { registerSecret } from '../util/secrets.js';
import { dirname, resolve } from 'node:path';
import { maskPassword, maskUserinfo, registerUrlSecrets } from '../util/url-text.js';

/** The schema tables and views go into on PostgreSQL when the user names none. */
export const DEFAULT_PG_SCHEMA = 'mintlify';
export const SCHEMA_ENV = 'MINTLIFY_ETL_SCHEMA';

/** Where a PostgreSQL destination lives, for messages: never the password. */
export interface PgWhere {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

/** What `--db` (or MINTLIFY_ETL_DB) names: a DuckDB file, or a schema of a PostgreSQL database. */
export type DbTarget =
  | { readonly kind: 'duckdb'; readonly path: string; readonly label: string }
  | {
      readonly kind: 'postgres';
      /** The URL as given (it may hold a password): for the driver only, never for output. */
      readonly url: string;
      readonly schema: string;
      readonly where: PgWhere;
      /** `postgresql://user@host:port/db (schema mintlify)`: how messages name it. */
      readonly label: string;
      /** `postgresql://user@host:port/db`: the database alone. */
      readonly database: string;
    };

const PG_SCHEMES = /^postgres(ql)?:\/\//i;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

export function isPostgresUrl(value: string): boolean {
  return PG_SCHEMES.test(value);
}

/**
 * Reads a `--db` value. A `postgresql://` or `postgres://` URL names a PostgreSQL destination
 * (libpq's conventions: a password left out comes from PGPASSWORD or ~/.pgpass, a host, port, user
 * or database left out from PGHOST, PGPORT, PGUSER, PGDATABASE; `sslmode=` in the query); anything
 * else is a DuckDB file path. The URL's password and PGPASSWORD become secrets at once, so no
 * message can show them.
 */
export function parseDbTarget(
  value: string,
  schema?: string,
  env: NodeJS.ProcessEnv = process.env,
): DbTarget {
  if (!isPostgresUrl(value)) {
    // --schema with a DuckDB file is a mistake worth saying (MINTLIFY_ETL_SCHEMA is left for PostgreSQL runs).
    if (schema !== undefined) {
      throw new UsageError(
        `--schema applies to a PostgreSQL --db only; ${value} is a DuckDB file: drop --schema, or give --db postgresql://...`,
        { schema },
      );
    }
    return { kind: 'duckdb', path: value, label: value };
  }
  registerUrlSecrets(value);
  const pgPassword = env['PGPASSWORD'];
  if (pgPassword !== undefined && pgPassword !== '') registerSecret(pgPassword);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--db ${maskUserinfo(value)} is not a valid PostgreSQL URL: write it as postgresql:// then USER@HOST:5432/DATABASE (a password in it, or PGPASSWORD; percent-encode a #, /, ? or @ in it as %23, %2F, %3F, %40)`,
      {},
    );
  }
  const chosen = pgSchemaName(schema, env);
  const where = whereOf(url, env);
  return {
    kind: 'postgres',
    url: value,
    schema: chosen,
    where,
    label: `postgresql://${where.user}@${where.host}:${where.port}/${where.database} (schema ${chosen})`,
    database: `postgresql://${where.user}@${where.host}:${where.port}/${where.database}`,
  };
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Where pg connects: the query's host and port over the URL's (pg-connection-string's order). */
function whereOf(url: URL, env: NodeJS.ProcessEnv): PgWhere {
  const host = url.searchParams.get('host') || decoded(url.hostname) || env['PGHOST'] || 'localhost';
  const port = Number(url.searchParams.get('port') || url.port || env['PGPORT'] || 5432);
  const user = decoded(url.username) || env['PGUSER'] || env['USER'] || 'postgres';
  const database = decoded(url.pathname.replace(/^\//, '')) || env['PGDATABASE'] || user;
  return { host, port, database, user };
}

export function describeWhere(w: PgWhere): string {
  return `host ${w.host}, port ${w.port}, database ${w.database}, user ${w.user}`;
}

/**
 * How a command line names this destination again, from any folder: a DuckDB file by its
 * absolute path, a PostgreSQL URL without its password (PGPASSWORD or ~/.pgpass supply it again),
 * with the schema when it is not the default. `folder`: where files made beside it belong.
 */
export function namedAgain(target: DbTarget): {
  readonly db: string;
  readonly schema: string | undefined;
  readonly folder: string;
} {
  if (target.kind === 'duckdb') {
    const db = resolve(target.path);
    return { db, schema: undefined, folder: dirname(db) };
  }
  return {
    db: maskPassword(target.url),
    schema: target.schema !== DEFAULT_PG_SCHEMA ? target.schema : undefined,
    folder: resolve('.'),
  };
}

/** The PostgreSQL schema a command works in: --schema, else MINTLIFY_ETL_SCHEMA, else mintlify; a plain, non-system name. */
export function pgSchemaName(schema: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = schema ?? env[SCHEMA_ENV] ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_NAME.test(chosen)) {
    throw new UsageError(
      `--schema ${JSON.stringify(chosen)} is not a plain schema name: use letters, digits and _ (e.g. mintlify)`,
      { schema: chosen },
    );
  }
  if (/^pg_/i.test(chosen) || chosen.toLowerCase() === 'information_schema') {
    throw new UsageError(
      `--schema ${chosen} is a system schema of PostgreSQL (pg_* and information_schema hold the server's own catalog, pg_temp a session's temporary objects that vanish with it): pick another name, e.g. --schema mintlify`,
      { schema: chosen },
    );
  }
  return chosen;
}
