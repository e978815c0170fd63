import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { InternalError } from '../../errors.js';
import { quoteIdent } from '../quote-ident.js';
import type { CopyColumn } from './copy-text.js';
import { chunkLines, encoderFor } from './copy-text.js';
import type { JsonChunk } from '../table-spec.js';

/** A window's chunks with what starts each of its lines. */
export interface CopySource {
  readonly prefix: string;
  readonly chunks: readonly JsonChunk[];
}

/**
 * COPY text pieces, one chunk at a time: `Readable.from` asks for the next only when the socket
 * has taken the last, so at most one chunk of a window is held as text beside its JSON.
 */
function* pieces(
  sources: readonly CopySource[],
  columns: readonly CopyColumn[],
  byColumn: boolean,
): Generator<string> {
  const encoders = columns.map(encoderFor);
  for (const s of sources)
    for (const c of s.chunks) if (c.rows > 0) yield chunkLines(c, columns, encoders, s.prefix, byColumn);
}

/**
 * Copies the sources' rows into `table` (`prefixColumns` first, then `columns`) with COPY FROM
 * STDIN in text format, and checks that every row sent arrived. A value PostgreSQL cannot store
 * stops the COPY (CopyFail), which fails the transaction it runs in.
 */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  prefixColumns: readonly string[],
  columns: readonly CopyColumn[],
  sources: readonly CopySource[],
  byColumn = false,
): Promise<void> {
  const sent = sources.reduce((n, s) => n + s.chunks.reduce((m, c) => m + c.rows, 0), 0);
  if (sent === 0) return;
  const names = [...prefixColumns, ...columns.map((c) => c.name)].map(quoteIdent).join(', ');
  const sink = client.query(copyFrom(`COPY ${table} (${names}) FROM STDIN`));
  // highWaterMark 1: the next chunk is made when the last has gone to the socket, not 16 ahead.
  await pipeline(Readable.from(pieces(sources, columns, byColumn), { highWaterMark: 1 }), sink);
  if (sink.rowCount !== sent) {
    throw new InternalError(
      `${table} rows did not round-trip: sent ${sent}, PostgreSQL read ${sink.rowCount}`,
      {
        table,
        sent,
        read: sink.rowCount,
      },
    );
  }
}
