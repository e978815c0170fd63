import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { InternalError, UsageError } from '../../errors.js';
import { sqlDir } from '../../paths.js';
import { numberedSqlFiles, type SqlFile } from '../database.js';
import { renderSql } from '../sql-fragments.js';
import { DEFAULT_PG_SCHEMA } from '../target.js';
import { inPgTransaction } from './session.js';

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
  const schema = opts.schema ?? DEFAULT_PG_SCHEMA;
  const dir = opts.sqlDir ?? postgresSqlDir();
  // CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even when the schema exists: a
  // writer given a schema by a DBA, without that right, must not need it.
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
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

const VIEW_NAME = /CREATE\s+OR\s+REPLACE\s+VIEW\s+([A-Za-z_][A-Za-z0-9_]*)/gi;
const VIEWS_TAG = 'mintlify-etl views sha256:';

/**
 * The views as this version ships them: their names, and one hash of every file, written on each
 * view as its comment, so that a later migration tells views that are current from old ones.
 */
async function shippedViews(
  dir: string,
): Promise<{ texts: { f: SqlFile; sql: string }[]; names: string[]; tag: string }> {
  const files = await numberedSqlFiles(join(dir, 'views'));
  const texts = await Promise.all(
    files.map(async (f) => ({ f, sql: renderSql(await readFile(f.file, 'utf8'), f.file) })),
  );
  const hash = createHash('sha256');
  for (const { f, sql } of texts) hash.update(`${f.name}\n${sql}\n`);
  const names = texts.flatMap(({ sql }) => [...sql.matchAll(VIEW_NAME)].map((m) => m[1] as string));
  return { texts, names, tag: `${VIEWS_TAG}${hash.digest('hex')}` };
}

/** Whether every shipped view is there with this version's tag: then nothing is touched. */
async function viewsCurrent(client: pg.ClientBase, names: readonly string[], tag: string): Promise<boolean> {
  const rows = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE s.nspname = current_schema() AND c.relkind = 'v' AND c.relname = ANY($1::text[])
       AND obj_description(c.oid, 'pg_class') = $2`,
    [names, tag],
  );
  return rows.rows[0]?.n === new Set(names).size;
}

/**
 * Drops and creates every view in one transaction when this version ships other views than the
 * schema has: CREATE OR REPLACE alone cannot rename or drop a column of an existing view, which a
 * new version of a view may do. When they are current, nothing is dropped: a DROP VIEW waits for
 * every reader of the view (a BI dashboard's long query) and makes every later reader wait
 * behind it, and it takes the grants a DBA gave on the view with it.
 */
async function applyViews(client: pg.ClientBase, dir: string): Promise<void> {
  const { texts, names, tag } = await shippedViews(dir);
  if (await viewsCurrent(client, names, tag)) return;
  await inPgTransaction(client, async () => {
    for (const { f, sql } of [...texts].reverse()) {
      const own = [...sql.matchAll(VIEW_NAME)].map((m) => m[1] as string);
      if (own.length === 0)
        throw new InternalError(`${f.file}: no CREATE OR REPLACE VIEW in it`, { file: f.file });
      for (const name of own.reverse()) await dropView(client, name);
    }
    for (const { f, sql } of texts) await runFile(client, f, sql);
    for (const name of names) await client.query(`COMMENT ON VIEW ${quoteIdent(name)} IS '${tag}'`);
  });
}

/**
 * Drops one of our views. Never CASCADE: a user's own view built on ours would go with it. Such a
 * view stops the upgrade instead, with one line saying which and what to do.
 */
async function dropView(client: pg.ClientBase, name: string): Promise<void> {
  try {
    await client.query(`DROP VIEW IF EXISTS ${quoteIdent(name)}`);
  } catch (e) {
    if ((e as { code?: string }).code !== '2BP01') throw e;
    const detail = String((e as { detail?: string }).detail ?? '').split('\n', 1)[0];
    throw new UsageError(
      `this version of mintlify-etl changes the view ${name}, and another object depends on it (${detail}): drop that object (build it on the tables instead, which are never dropped), run the sync, then create it again`,
      { view: name },
      { cause: e },
    );
  }
}

async function inTransaction(
  client: pg.ClientBase,
  f: SqlFile,
  fn: (sql: string) => Promise<void>,
): Promise<void> {
  const sql = renderSql(await readFile(f.file, 'utf8'), f.file);
  try {
    await inPgTransaction(client, () => fn(sql));
  } catch (e) {
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
