import { join } from 'node:path';
import type pg from 'pg';
import { DatabaseInUseError, DestinationError, InternalError, UsageError } from '../../errors.js';
import { sqlDir } from '../../paths.js';
import { numberedSqlFiles, renderFile, renderedSqlFiles, type SqlFile } from '../sql-source.js';
import { DEFAULT_PG_SCHEMA } from '../target.js';
import {
  checkOwnership,
  contractNames,
  markOwnObjects,
  TABLE_MARK,
  type ContractNames,
} from './ownership.js';
import { pgDialectFor, POSTGRES_DIALECT } from './dialect.js';
import { checkPrivateSchema, createPrivateSchema, sealPrivateSchema } from './private-schema.js';
import { inPgTransaction } from './session.js';
import { quoteIdent } from '../quote-ident.js';
import { tagViewsSql, viewNames, viewNamesIn, viewsTag } from '../views-tag.js';

/** What `migratePostgres` needs: a connected client it may keep using, and where to migrate. */
export interface MigrateOptions {
  readonly schema?: string;
  /** How messages name the database (without the password). */
  readonly label?: string;
  /** Test seam: the folder holding schema/ and views/. Default: the package's sql/. */
  readonly sqlDir?: string;
}

/** What a migration did not do, and why: said to the user as a warning, the run goes on. */
export interface MigrateResult {
  readonly notes: readonly string[];
}

/**
 * How long a change of the schema (a migration, the views of a new version) may wait for a lock.
 * Short: while a DDL statement waits for its AccessExclusive lock, every new reader of the object
 * queues behind it, and no reader asked for the change.
 */
export const DDL_LOCK_TIMEOUT_MS = 200;

/**
 * Checks that every object of the tool's names in the schema is its own (ownership.ts: nothing is
 * created when it is not), creates the schema when missing, points the session at it (search_path,
 * TimeZone UTC: the SQL files name no schema and read days in UTC), applies every migration not yet
 * recorded in schema_migrations (one transaction each, with its row), then recreates the views
 * (one transaction) unless a reader holds them (then they wait for the next run, said in a note).
 * An advisory lock on the schema name keeps two processes from migrating at once.
 */
export async function migratePostgres(
  client: pg.ClientBase,
  opts: MigrateOptions = {},
): Promise<MigrateResult> {
  const schema = opts.schema ?? DEFAULT_PG_SCHEMA;
  const dir = opts.sqlDir ?? sqlDir();
  const label = opts.label ?? 'the database';
  const names = await contractNames(dir);
  // CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even when the schema exists: a
  // writer given a schema by a DBA, without that right, must not need it.
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(`SET search_path TO ${quoteIdent(schema)}`);
  await client.query("SET TimeZone TO 'UTC'");
  await takeMigrateLock(client, schema, label);
  try {
    const { legacy } = await checkOwnership(client, schema, label, names);
    await checkPrivateSchema(client, schema, label);
    await createPrivateSchema(client, schema);
    if (legacy) await markOwnObjects(client, schema, names);
    await applyMigrations(client, { schema, dir, label, names });
    const sealed = await sealPrivateSchema(client, schema);
    return { notes: [...sealed, ...(await applyViews(client, { schema, dir, label, names }))] };
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('mintlify-etl migrate ' || $1))", [schema]);
  }
}

async function takeMigrateLock(client: pg.ClientBase, schema: string, label: string): Promise<void> {
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('mintlify-etl migrate ' || $1))", [schema]);
  } catch (e) {
    if (!isLockTimeout(e)) throw e;
    throw new DatabaseInUseError(
      `another mintlify-etl is migrating schema ${schema} of ${label} and has not finished within the lock timeout; try again when it is done`,
      { schema },
      { cause: e },
    );
  }
}

interface Where {
  readonly schema: string;
  readonly dir: string;
  readonly label: string;
  readonly names: ContractNames;
}

async function applyMigrations(client: pg.ClientBase, w: Where): Promise<void> {
  const { schema, dir } = w;
  const exists = await client.query<{ ok: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS ok",
  );
  if (exists.rows[0]?.ok !== true)
    await inPgTransaction(client, async () => {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)',
      );
      await client.query(`COMMENT ON TABLE schema_migrations IS '${TABLE_MARK}'`);
    });
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
    await inTransaction(client, w, f, async (sql) => {
      await client.query(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT_MS}ms'`);
      await client.query(sql);
      // In the transaction that created them: a table of ours never exists without its marker,
      // and the key's schema never holds a grant (a default privilege gives one) once committed.
      await markOwnObjects(client, schema, w.names);
      await sealPrivateSchema(client, schema);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())', [
        f.version,
      ]);
    });
  }
}

/**
 * The views as this version ships them: their names, and one hash of every file, written on each
 * view as its comment, so that a later migration tells views that are current from old ones.
 */
async function shippedViews(
  dir: string,
): Promise<{ texts: { f: SqlFile; sql: string }[]; names: string[]; tag: string }> {
  const files = await renderedSqlFiles(dir, 'views', POSTGRES_DIALECT);
  const texts = files.map((f) => ({ f, sql: f.sql }));
  return { texts, names: viewNames(files), tag: viewsTag(files) };
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
 * behind it, and it takes the grants a DBA gave on the view with it. For the same reason, when a
 * session holds one of the views (a dashboard's open transaction), the change waits for a later
 * run: the data loads under the views in place, and the note returned says who holds them. A
 * reader that comes in between that look and the DROP waits at most DDL_LOCK_TIMEOUT_MS.
 */
async function applyViews(client: pg.ClientBase, w: Where): Promise<string[]> {
  const { texts, names, tag } = await shippedViews(w.dir);
  if (await viewsCurrent(client, names, tag)) return [];
  const held = await holdersOf(client, w.schema, names);
  if (held.length > 0) return [deferredViews(w, held)];
  try {
    await inPgTransaction(client, async () => {
      await client.query(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT_MS}ms'`);
      for (const { f, sql } of [...texts].reverse()) {
        const own = viewNamesIn(sql);
        if (own.length === 0)
          throw new InternalError(`${f.file}: no CREATE OR REPLACE VIEW in it`, { file: f.file });
        for (const name of own.reverse()) await dropView(client, name);
      }
      for (const { f, sql } of texts) await runFile(client, f, sql);
      for (const sql of tagViewsSql(names, tag)) await client.query(sql);
      await markOwnObjects(client, w.schema, w.names);
    });
  } catch (e) {
    if (!isLockTimeout(e) && !isLockTimeout((e as Error).cause)) throw e;
    return [deferredViews(w, await holdersOf(client, w.schema, names))];
  }
  return [];
}

/** PostgreSQL's lock_not_available (lock_timeout ran out, or NOWAIT). */
function isLockTimeout(e: unknown): boolean {
  return (e as { code?: string } | undefined)?.code === '55P03';
}

/** A session other than this one holding a lock on one of the named relations of the schema. */
export interface Holder {
  pid: number;
  relation: string;
  application: string | null;
  since: string | null;
}

export async function holdersOf(
  client: pg.ClientBase,
  schema: string,
  names: readonly string[],
): Promise<Holder[]> {
  const r = await client.query<Holder>(
    `SELECT DISTINCT ON (l.pid) l.pid, c.relname AS relation, a.application_name AS application,
            to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') AS since
     FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND l.granted AND l.pid <> pg_backend_pid()
     ORDER BY l.pid, c.relname`,
    [schema, names],
  );
  return r.rows;
}

function describeHolders(held: readonly Holder[]): string {
  if (held.length === 0) return 'a session that has since let go';
  const parts = held.slice(0, 3).map((h) => {
    const app = h.application ? ` (${JSON.stringify(h.application)})` : '';
    const since = h.since ? `, in a transaction since ${h.since}` : '';
    return `server process ${h.pid}${app} reading ${h.relation}${since}`;
  });
  return `${parts.join('; ')}${held.length > 3 ? `; and ${held.length - 3} more` : ''}`;
}

function deferredViews(w: Where, held: readonly Holder[]): string {
  return `the views of schema ${w.schema} were not updated to this version of mintlify-etl: ${describeHolders(held)}, and changing a view would make every reader queue behind it; the data is loaded and the views in place keep working; the next sync updates them (or end that transaction, e.g. SELECT pg_terminate_backend(${held[0]?.pid ?? 'PID'}))`;
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

/**
 * One migration file in a transaction. A lock it cannot get in time (a dashboard reading the
 * table it alters) leaves the schema as it was and stops the run with exit 5 naming the holder:
 * the new version cannot load into the old tables.
 */
async function inTransaction(
  client: pg.ClientBase,
  w: Where,
  f: SqlFile,
  fn: (sql: string) => Promise<void>,
): Promise<void> {
  const sql = await renderFile(f, pgDialectFor(w.schema));
  try {
    await inPgTransaction(client, () => fn(sql));
  } catch (e) {
    if (e instanceof InternalError || e instanceof DestinationError) throw e;
    if (isLockTimeout(e)) {
      const held = await holdersOf(client, w.schema, [...w.names.tables, ...w.names.views]);
      throw new DatabaseInUseError(
        `cannot upgrade schema ${w.schema} of ${w.label} to this version of mintlify-etl (${f.name}) now: ${describeHolders(held)}; nothing was changed; run the sync again when that transaction has ended (or end it, e.g. SELECT pg_terminate_backend(${held[0]?.pid ?? 'PID'}))`,
        { schema: w.schema, migration: f.name, holderPid: held[0]?.pid ?? null },
        { cause: e },
      );
    }
    throw new InternalError(`${f.file}: ${(e as Error).message}`, { file: f.file }, { cause: e });
  }
}

async function runFile(client: pg.ClientBase, f: SqlFile, sql: string): Promise<void> {
  try {
    await client.query(sql);
  } catch (e) {
    if (isLockTimeout(e)) throw e;
    throw new InternalError(`${f.file}: ${(e as Error).message}`, { file: f.file }, { cause: e });
  }
}
