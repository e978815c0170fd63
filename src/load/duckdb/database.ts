import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DuckDBInstance, listValue, type DuckDBConnection } from '@duckdb/node-api';
import { DatabaseInUseError, InternalError, UsageError } from '../../errors.js';
import { sqlDir } from '../../paths.js';
import { makeFolder, userFileError } from '../../util/file-errors.js';
import { damageOnOpen, refuseMissingBlocks, reportingDamage } from './integrity.js';
import { numberedSqlFiles, renderedSqlFiles } from '../sql-source.js';
import { tagViewsSql, viewNames, viewsTag } from '../views-tag.js';
import { DUCKDB_DIALECT } from './dialect.js';
import { inTransaction, queryRows, runSql, runSqlFile } from './sql.js';
import { duckSession } from './session.js';
import type { SqlSession } from '../session.js';

export interface Database {
  readonly kind: 'duckdb';
  /** The path as given to openDatabase. */
  readonly path: string;
  /** How messages name the destination (the path). */
  readonly label: string;
  readonly connection: DuckDBConnection;
  /** The connection as a dialect-neutral SqlSession (what code shared with PostgreSQL takes). */
  readonly session: SqlSession;
  readonly readOnly: boolean;
  /** Closes the connection and the instance: the file is free for other processes afterwards. */
  close(): void;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** How long to keep retrying while another process holds the file. */
  busyTimeoutMs?: number;
  /**
   * Called once when the file has been busy for a second, with the holder's pid if DuckDB named
   * it: a reader says what it waits for instead of hanging silently.
   */
  onWait?: (holderPid: number | undefined, busyTimeoutMs: number) => void;
  /** Test seam: where migrations (`schema/`) and views (`views/`) live. Default: the package's sql/. */
  sqlDir?: string;
  /**
   * For SQL typed by a user (`query`): no file system or network access beyond the database
   * itself (no COPY TO, ATTACH, EXPORT, INSTALL, read_csv of other files), and settings locked
   * so that no statement can turn that back on. Read-only mode alone still lets `COPY ... TO`
   * overwrite any file, the database included.
   */
  sandbox?: boolean;
  /**
   * DuckDB's memory_limit for this instance (e.g. '128MB'). DuckDB's default is 80% of the
   * machine's memory, and a read keeps every block it scanned cached up to it: a reader would grow
   * with the database. See READER_MEMORY_LIMIT.
   */
  memoryLimit?: string;
}

/**
 * DuckDB's memory_limit for the read commands that may spill to DuckDB's temp folder (export,
 * report, status; not the sandboxed query). DuckDB's default is 80% of the machine's memory, and
 * it keeps every block a command scanned cached up to it: on 3 years of 5,000 paths a day
 * (BENCHMARKS.md, benchmark 7) export grew to 0.8-1 GB. Under this limit cached blocks are
 * evicted (a read-only file's blocks are dropped, never written) and a sort past it spills.
 * 128MB: export peaked at ~290 MiB; 64MB: ~245 MiB, with no measurable cost in time.
 */
export const READER_MEMORY_LIMIT = '64MB';

/**
 * A reader waits up to 15 s: a sync's writer hands the file over at least every couple of seconds
 * (see WindowWriter), so a reader gets in within one of its pauses. The writer waits longer for a
 * reader to finish (an export of a big database takes a while) before a load fails.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = { readWrite: 120_000, readOnly: 15_000 } as const;
/**
 * Retry delays while the file is busy. Readers poll at a steady 100 ms: the writer's pause is a
 * few hundred ms, and a backoff that grew past it would step over every pause.
 */
const RETRY_DELAY_MS = { min: 50, max: 500, reader: 100 } as const;
const SAY_WAITING_AFTER_MS = 1_000;

/** DuckDB's message when another process holds the file: `Could not set lock on file "…": Conflicting lock is held in /usr/bin/node (PID 123)`. */
export function lockHolder(err: unknown): { locked: boolean; pid: number | undefined } {
  const message = err instanceof Error ? err.message : String(err);
  const locked =
    /could not set lock|conflicting lock|database is locked|resource temporarily unavailable/i.test(message);
  const pid = /\bPID (\d+)/i.exec(message)?.[1];
  return { locked, pid: pid === undefined ? undefined : Number(pid) };
}

async function createInstance(
  path: string,
  readOnly: boolean,
  busyTimeoutMs: number,
  sandbox: boolean,
  onWait: OpenOptions['onWait'],
  settings: Pick<OpenOptions, 'memoryLimit'>,
): Promise<DuckDBInstance> {
  const options: Record<string, string> = {
    // A --db named x.sqlite or x.parquet would otherwise make DuckDB fetch an extension from the
    // internet and open the file through it; this tool only ever reads and writes DuckDB files.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
  };
  if (sandbox) options['enable_external_access'] = 'false';
  if (settings.memoryLimit !== undefined) options['memory_limit'] = settings.memoryLimit;
  const started = Date.now();
  const deadline = started + busyTimeoutMs;
  let delay: number = readOnly ? RETRY_DELAY_MS.reader : RETRY_DELAY_MS.min;
  let said = false;
  for (;;) {
    try {
      return await DuckDBInstance.create(path, options);
    } catch (e) {
      const { locked, pid } = lockHolder(e);
      if (!locked) {
        throw (
          damageOnOpen(path, e) ??
          userFileError(e, `--db ${path}`, readOnly ? 'open' : 'open for writing', path) ??
          new InternalError(`cannot open database ${path}: ${(e as Error).message}`, { path }, { cause: e })
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        const who = pid === undefined ? 'another process' : `another process (pid ${pid})`;
        throw new DatabaseInUseError(
          `database ${path} is open in ${who}: close it (a DuckDB shell, BI tool or another mintlify-etl), ` +
            `or point --db at another file; gave up after ${busyTimeoutMs} ms`,
          { path, pid, busyTimeoutMs },
          { cause: e },
        );
      }
      if (!said && Date.now() - started >= SAY_WAITING_AFTER_MS) {
        said = true;
        onWait?.(pid, busyTimeoutMs);
      }
      await sleep(Math.min(delay, left));
      if (!readOnly) delay = Math.min(delay * 2, RETRY_DELAY_MS.max);
    }
  }
}

/** The newest migration applied to this database (0 for none). */
export async function schemaVersion(conn: DuckDBConnection): Promise<number> {
  // A file with no schema_migrations table (never migrated) is version 0.
  const rows = await queryRows(conn, 'SELECT coalesce(max(version), 0) AS v FROM schema_migrations').catch(
    () => [{ v: 0 }],
  );
  return Number(rows[0]?.['v'] ?? 0);
}

/** The newest migration this mintlify-etl ships. */
export async function knownSchemaVersion(dir: string = sqlDir()): Promise<number> {
  const files = await numberedSqlFiles(join(dir, 'schema'));
  return Math.max(0, ...files.map((f) => f.version));
}

async function migrate(conn: DuckDBConnection, path: string, dir: string): Promise<void> {
  await conn.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)',
  );
  const applied = new Set(
    (await queryRows(conn, 'SELECT version FROM schema_migrations')).map((r) => Number(r['version'])),
  );
  const files = await numberedSqlFiles(join(dir, 'schema'));
  const newest = Math.max(0, ...applied);
  const known = Math.max(0, ...files.map((f) => f.version));
  if (newest > known) {
    throw new UsageError(
      `database ${path} has schema version ${newest}, newer than this mintlify-etl knows (${known}): upgrade mintlify-etl`,
      { path, version: newest, known },
    );
  }
  for (const f of files) {
    if (applied.has(f.version)) continue;
    await inTransaction(conn, async () => {
      await runSqlFile(conn, f.file);
      await conn.run('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())', [f.version]);
    });
  }
}

/**
 * Whether the file holds this version's views: every one there, carrying the tag as its comment.
 * A view dropped, replaced by hand (a replaced view loses its comment) or made by another version
 * of the tool makes them all be applied again.
 */
async function viewsCurrent(conn: DuckDBConnection, names: readonly string[], tag: string): Promise<boolean> {
  const rows = await queryRows(
    conn,
    `SELECT count(DISTINCT view_name) AS n FROM duckdb_views()
     WHERE NOT internal AND database_name = current_database() AND schema_name = 'main'
       AND view_name = ANY($1::VARCHAR[]) AND comment = $2`,
    [listValue([...names]), tag],
  );
  return Number(rows[0]?.['n'] ?? 0) === new Set(names).size;
}

/**
 * Applies the views (and the macros their files define) unless the file holds this version's, so
 * that a run does not rewrite 23 catalog entries at every open (benchmark 11 measured 70 ms for
 * it; on 2026-11-29 the CPU of a whole sync showed no difference either way).
 */
async function applyViews(conn: DuckDBConnection, dir: string): Promise<void> {
  const files = await renderedSqlFiles(dir, 'views', DUCKDB_DIALECT);
  const names = viewNames(files);
  const tag = viewsTag(files);
  if (names.length > 0 && (await viewsCurrent(conn, names, tag))) return;
  await inTransaction(conn, async () => {
    for (const f of files) await runSql(conn, f.sql, f.file);
    for (const sql of tagViewsSql(names, tag)) await conn.run(sql);
  });
}

/** Bytes 8..11 of every DuckDB file (after an 8-byte checksum of the main header). */
const DUCKDB_MAGIC = 'DUCK';

/** True when the file starts like a DuckDB database (its header magic), false for anything else. */
export function isDuckDbFile(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(12);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.toString('latin1', 8, 12) === DUCKDB_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses a --db that names a folder, or an existing file that is not a DuckDB database, before
 * anything is written. DuckDB itself opens a CSV or JSON path as an empty in-memory database and
 * says nothing, so a sync into it would report success and store nothing.
 */
export function checkDbPath(path: string): void {
  const file = resolve(path);
  if (!existsSync(file)) {
    // mkdir of its folder would fail with EEXIST (an internal error) on a file in the way.
    for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
      if (!existsSync(dir)) continue;
      if (!statSync(dir).isDirectory()) {
        throw new UsageError(
          `--db ${path}: ${dir} is a file, not a folder: point --db (or MINTLIFY_ETL_DB) at a path whose folders are folders`,
          { path },
        );
      }
      break;
    }
    return;
  }
  if (!statSync(file).isFile()) {
    throw new UsageError(
      `--db ${path} is a folder, not a database file: point --db (or MINTLIFY_ETL_DB) at a file, e.g. ${join(path, 'analytics.duckdb')}`,
      { path },
    );
  }
  let duck: boolean;
  try {
    duck = isDuckDbFile(file);
  } catch (e) {
    throw new UsageError(
      `--db ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check its permissions, or point --db at another file`,
      { path },
      { cause: e },
    );
  }
  if (!duck) {
    throw new UsageError(
      `--db ${path} exists but is not a DuckDB database (${statSync(file).size === 0 ? 'it is empty' : 'its first bytes are not a DuckDB header'}); it was left untouched: point --db (or MINTLIFY_ETL_DB) at a .duckdb file, or at a path that does not exist yet to create one`,
      { path },
    );
  }
}

/**
 * Shuts the user's SQL off from every file. `enable_external_access = false` alone still lets
 * DuckDB write to the database's own file and WAL (it allows them as "the database's paths", so
 * `COPY ... TO 'the.duckdb' (USE_TMP_FILE false)` replaced the database), and file logging under
 * it aborts the process natively. The file handles DuckDB already holds keep working once the
 * local file system is disabled; any new open, read or write, is refused. The settings are then
 * locked so that no statement can undo this.
 */
async function sandbox(conn: DuckDBConnection): Promise<void> {
  await conn.run("SET disabled_filesystems = 'LocalFileSystem'");
  await conn.run('SET lock_configuration = true');
}

/**
 * Opens (and when read-write: creates, migrates and refreshes the views of) the database file.
 * Never uses DuckDB's instance cache: close() must really let go of the file, because the sync
 * closes it while it waits on the API budget so that analysts can open it in between.
 */
export async function openDatabase(path: string, opts: OpenOptions = {}): Promise<Database> {
  const readOnly = opts.readOnly ?? false;
  const busyTimeoutMs =
    opts.busyTimeoutMs ?? (readOnly ? DEFAULT_BUSY_TIMEOUT_MS.readOnly : DEFAULT_BUSY_TIMEOUT_MS.readWrite);
  const file = resolve(path);
  checkDbPath(path);
  if (readOnly) {
    if (!existsSync(file)) {
      throw new UsageError(`no database at ${path}: run \`mintlify-etl sync\` first (or pass --db)`, {
        path,
      });
    }
  } else {
    makeFolder(dirname(file), `--db ${path}`);
  }

  const instance = await createInstance(file, readOnly, busyTimeoutMs, opts.sandbox ?? false, opts.onWait, {
    ...(opts.memoryLimit !== undefined ? { memoryLimit: opts.memoryLimit } : {}),
  });
  let connection: DuckDBConnection | undefined;
  const closeAll = (): void => {
    connection?.closeSync();
    instance.closeSync();
  };
  try {
    connection = await instance.connect();
    // Days are UTC days; a TIMESTAMPTZ shown or cast in the machine's zone would disagree with them.
    await connection.run("SET TimeZone = 'UTC'");
    if (opts.sandbox) await sandbox(connection);
    if (!readOnly) {
      // Before a migration writes: a file cut short would be written into as if healthy.
      await refuseMissingBlocks(connection, path, file);
      const dir = opts.sqlDir ?? sqlDir();
      await migrate(connection, path, dir);
      await applyViews(connection, dir);
    }
  } catch (e) {
    closeAll();
    throw e;
  }
  const conn = connection;
  let closed = false;
  return {
    kind: 'duckdb',
    path,
    label: path,
    connection: conn,
    // The sandbox locks DuckDB's settings (and sets no limit): only other readers can take headroom.
    // A reader's statements fail as "damaged" when DuckDB meets a block whose checksum is wrong.
    session: readOnly
      ? reportingDamage(duckSession(conn, { readHeadroom: opts.sandbox !== true }), path)
      : duckSession(conn),
    readOnly,
    close(): void {
      if (closed) return;
      closed = true;
      closeAll();
    },
  };
}
