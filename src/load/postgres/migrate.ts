import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { InternalError, UsageError } from '../../errors.js';
import { sqlDir } from '../../paths.js';
import { numberedSqlFiles, type SqlFile } from '../database.js';

/** The schema tables and views go into when the user names none. */
export const DEFAULT_SCHEMA = 'mintlify';

/** Where the PostgreSQL dialect of the migrations (`schema/`) and views (`views/`) lives. */
export function postgresSqlDir(): string {
  return join(sqlDir(), 'postgres');
}

/** A double-quoted identifier: any schema name a user picks is safe in SQL. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** What `migratePostgres` needs: a connected client it may keep using, and where to migrate. */
export interface MigrateOptions {
  readonly schema?: string;
  /** Test seam: the folder holding schema/ and views/. Default: the package's sql/postgres. */
  readonly sqlDir?: string;
}

/**
 * Creates the schema when missing, points the session at it (search_path, TimeZone UTC: the SQL
 * files name no schema and read days in UTC), applies every migration not yet recorded in
 * schema_migrations (one transaction each, with its row), then recreates the views (one
 * transaction). An advisory lock on the schema name keeps two processes from migrating at once.
 */
export async function migratePostgres(client: pg.ClientBase, opts: MigrateOptions = {}): Promise<void> {
  const schema = opts.schema ?? DEFAULT_SCHEMA;
  const dir = opts.sqlDir ?? postgresSqlDir();
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(`SET search_path TO ${quoteIdent(schema)}`);
  await client.query("SET TimeZone TO 'UTC'");
  await client.query("SELECT pg_advisory_lock(hashtext('mintlify-etl migrate ' || $1))", [schema]);
  try {
    await applyMigrations(client, schema, dir);
    await applyViews(client, dir);
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('mintlify-etl migrate ' || $1))", [schema]);
  }
}

async function applyMigrations(client: pg.ClientBase, schema: string, dir: string): Promise<void> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)',
  );
  const applied = new Set(
    (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
      (r) => r.version,
    ),
  );
  const files = await numberedSqlFiles(join(dir, 'schema'));
  const newest = Math.max(0, ...applied);
  const known = Math.max(0, ...files.map((f) => f.version));
  if (newest > known) {
    throw new UsageError(
      `schema ${schema} has schema version ${newest}, newer than this mintlify-etl knows (${known}): upgrade mintlify-etl`,
      { schema, version: newest, known },
    );
  }
  for (const f of files) {
    if (applied.has(f.version)) continue;
    await inTransaction(client, f, async (sql) => {
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())', [
        f.version,
      ]);
    });
  }
}

const VIEW_NAME = /CREATE\s+OR\s+REPLACE\s+VIEW\s+([A-Za-z_][A-Za-z0-9_]*)/i;

/**
 * Drops and creates every view in one transaction: CREATE OR REPLACE alone cannot rename or drop a
 * column of an existing view, which a new version of a view may do.
 */
async function applyViews(client: pg.ClientBase, dir: string): Promise<void> {
  const files = await numberedSqlFiles(join(dir, 'views'));
  const texts = await Promise.all(files.map(async (f) => ({ f, sql: await readFile(f.file, 'utf8') })));
  await client.query('BEGIN');
  try {
    for (const { f, sql } of [...texts].reverse()) {
      const name = VIEW_NAME.exec(sql)?.[1];
      if (!name) throw new InternalError(`${f.file}: no CREATE OR REPLACE VIEW in it`, { file: f.file });
      await client.query(`DROP VIEW IF EXISTS ${quoteIdent(name)}`);
    }
    for (const { f, sql } of texts) await runFile(client, f, sql);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  }
}

async function inTransaction(
  client: pg.ClientBase,
  f: SqlFile,
  fn: (sql: string) => Promise<void>,
): Promise<void> {
  const sql = await readFile(f.file, 'utf8');
  await client.query('BEGIN');
  try {
    await fn(sql);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    if (e instanceof InternalError) throw e;
    throw new InternalError(`${f.file}: ${(e as Error).message}`, { file: f.file }, { cause: e });
  }
}

async function runFile(client: pg.ClientBase, f: SqlFile, sql: string): Promise<void> {
  try {
    await client.query(sql);
  } catch (e) {
    throw new InternalError(`${f.file}: ${(e as Error).message}`, { file: f.file }, { cause: e });
  }
}
