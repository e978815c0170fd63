import { statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseDamagedError } from '../errors.js';
import { queryRows } from './sql.js';

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
 * Refuses a file cut short (a copy that stopped, a full disk, a truncate): DuckDB opens it as long
 * as its headers and catalog are intact, then writes into it as if healthy and fails on the first
 * read of a missing block. Its header counts the blocks the file must hold (PRAGMA database_size),
 * so comparing that with the file's size finds the cut before anything is written, whatever its
 * size, without reading the data.
 */
export async function refuseCutShort(conn: DuckDBConnection, path: string, file: string): Promise<void> {
  const [row] = await queryRows(conn, 'PRAGMA database_size');
  const blocks = Number(row?.['total_blocks']);
  const blockSize = Number(row?.['block_size']);
  if (!Number.isSafeInteger(blocks) || !Number.isSafeInteger(blockSize)) return;
  const expected = DUCKDB_HEADER_BYTES + blocks * blockSize;
  const size = statSync(file).size;
  if (size < expected) {
    throw damaged(
      path,
      `the file holds ${size} bytes but its header counts ${blocks} blocks of ${blockSize} bytes, ${expected} bytes in all: it was cut short`,
    );
  }
}
