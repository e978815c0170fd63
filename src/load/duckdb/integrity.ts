import { statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseDamagedError } from '../../errors.js';
import type { SqlSession } from '../session.js';
import { queryRows } from './sql.js';
import { onRunStart } from '../../util/run-state.js';
import { quoteIdent } from '../quote-ident.js';

/** A DuckDB file starts with three 4 KiB headers (the main one and two alternating database headers). */
const DUCKDB_HEADER_BYTES = 3 * 4096;

/** DuckDB's words when the file's bytes are not what its headers promise. */
const DAMAGE =
  /could not read enough bytes|corrupt|checksum|failed to (?:read|load) (?:the )?(?:database )?(?:header|metadata)/i;

function damaged(path: string, detail: string, cause?: unknown): DatabaseDamagedError {
  return new DatabaseDamagedError(
    `database ${path} is damaged (${detail}); nothing was written to it: restore it from a backup, or move it aside (mv "${path}" "${path}.damaged") and run sync again to start a new one`,
    { path, detail },
    cause === undefined ? undefined : { cause },
  );
}

/** DuckDB's refusal to open a damaged file, as the error that says what to do; undefined for any other failure. */
export function damageOnOpen(path: string, e: unknown): DatabaseDamagedError | undefined {
  const message = e instanceof Error ? e.message : String(e);
  if (!DAMAGE.test(message)) return undefined;
  return damaged(path, message.split('\n')[0]?.slice(0, 200) ?? 'unreadable', e);
}

/**
 * A reader's session whose statements fail as DatabaseDamagedError when DuckDB finds a block that
 * is not what the file promised. DuckDB checks a block's checksum only when it reads the block, so
 * a file whose data went bad after it was written opens fine and fails in the middle of a read:
 * the user's file, not a fault of the tool. Readers only: nothing was written, as the line says.
 */
export function reportingDamage(session: SqlSession, path: string): SqlSession {
  const mapped = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw damageOnOpen(path, e) ?? e;
    }
  };
  return {
    dialect: session.dialect,
    sql: session.sql,
    rows: (sql, params) => mapped(() => session.rows(sql, params)),
    run: (sql, params) => mapped(() => session.run(sql, params)),
    transaction: (fn) => mapped(() => session.transaction(fn)),
  };
}

/** DuckDB files of this process found whole already: a reopen by the writer need not look again. */
const verified = new Set<string>();
onRunStart(() => verified.clear());

/**
 * Refuses a file cut short (a copy that stopped, a full disk, a truncate): DuckDB opens it as long
 * as its headers and catalog are intact, then writes into it as if healthy and fails on the first
 * read of a missing block ("Corrupt database file"). DuckDB's storage_info names the block of
 * every stored segment of every table; reading it loads each table's metadata (not its data), so
 * a missing metadata block fails here too, and a data block past the end of the file is found by
 * its number. Free blocks may lie past the end (DuckDB writes a block when it uses it), and the
 * header's block count includes them, so it cannot be compared with the size. Once per file per
 * process: the sync's writer reopens the file many times.
 */
export async function refuseMissingBlocks(conn: DuckDBConnection, path: string, file: string): Promise<void> {
  if (verified.has(file)) return;
  try {
    const [size] = await queryRows(conn, 'PRAGMA database_size');
    const blockSize = Number(size?.['block_size']);
    const tables = await queryRows(
      conn,
      'SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary AND database_name = current_database()',
    );
    // Metadata blocks (catalog, row-group pointers) are not segments of any table.
    const [meta] = await queryRows(conn, 'SELECT max(block_id) AS b FROM pragma_metadata_info()');
    let last = meta?.['b'] === null || meta?.['b'] === undefined ? -1 : Number(meta['b']);
    // One statement for every table: a file holds about 25, and each query costs a round trip.
    const perTable = tables.map((t) => {
      const name = `${quoteIdent(String(t['schema_name']))}.${quoteIdent(String(t['table_name']))}`;
      return `SELECT max(greatest(block_id, coalesce(list_max(additional_block_ids), -1))) AS b FROM pragma_storage_info(${sqlText(name)}) WHERE persistent`;
    });
    if (perTable.length > 0) {
      const [row] = await queryRows(conn, `SELECT max(b) AS b FROM (${perTable.join(' UNION ALL ')})`);
      const b = row?.['b'];
      if (b !== null && b !== undefined) last = Math.max(last, Number(b));
    }
    const needed = DUCKDB_HEADER_BYTES + (last + 1) * blockSize;
    const actual = statSync(file).size;
    if (Number.isSafeInteger(needed) && actual < needed) {
      throw damaged(
        path,
        `the file holds ${actual} bytes but its data reaches block ${last} of ${blockSize} bytes, ${needed} bytes in all: it was cut short`,
      );
    }
  } catch (e) {
    if (e instanceof DatabaseDamagedError) throw e;
    throw damageOnOpen(path, e) ?? e;
  }
  verified.add(file);
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
