import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { InternalError } from '../errors.js';
import { toDateValue } from './sql.js';
import type { PreparedWindow, TableLoader } from './window-batch.js';

/** A day table of a stream: (project_id, day) plus these columns, filled from JSON rows. */
export interface JsonTable {
  readonly table: string;
  /** Columns besides project_id and day, as [name, DuckDB type], named like the JSON fields. */
  readonly columns: readonly (readonly [string, string])[];
  /** The window's day column (default `day`; the period tables key on `period_start`). */
  readonly dayColumn?: string;
}

/** One window's rows for one table, as JSON text (a few thousand rows at most per chunk). */
export interface JsonChunk {
  readonly rows: number;
  readonly body: string;
}

/** What a stream's `prepare` hands the loader: per table, the window's rows in chunks. */
export type JsonTablesData = Readonly<Record<string, readonly JsonChunk[]>>;

/** Rows per JSON text: DuckDB parses one string in one allocation, so it stays small. */
const CHUNK_ROWS = 20_000;

/** Turns rows (objects named like the table's columns) into JSON chunks of at most CHUNK_ROWS. */
export function jsonChunks(rows: readonly object[], t: JsonTable): JsonChunk[] {
  const fields = t.columns.map(([name]) => name);
  const out: JsonChunk[] = [];
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const part = rows.slice(i, i + CHUNK_ROWS);
    out.push({ rows: part.length, body: JSON.stringify(part, fields) });
  }
  return out;
}

function insertSql(t: JsonTable): string {
  const names = t.columns.map(([n]) => n);
  const shape = `[{${t.columns.map(([n, type]) => `"${n}":"${type}"`).join(',')}}]`;
  return `INSERT INTO ${t.table} (project_id, ${t.dayColumn ?? 'day'}, ${names.join(', ')})
SELECT project_id, day, ${names.map((n) => `r.${n}`).join(', ')} FROM (
  SELECT project_id, day, unnest(from_json(body, '${shape}')) AS r
  FROM (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day, unnest($3::VARCHAR[]) AS body)
)`;
}

function deleteSql(table: string): string {
  return `DELETE FROM ${table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day) AS k
WHERE ${table}.project_id = k.project_id AND ${table}.day = k.day`;
}

/**
 * Inserts windows' JSON chunks into one table: chunks of many windows go in one INSERT (up to
 * CHUNK_ROWS rows; a statement per day was most of the cost), parsed by DuckDB's own JSON reader.
 * Handing each value to the Appender instead costs a native call per value on the main thread
 * (the loader ran at ~200,000 rows/s, 5x slower than `read_json`); JSON.stringify is native V8
 * code and the parse runs on DuckDB's threads (BENCHMARKS.md, benchmark 3). The values were
 * checked by the stream's schema and `prepare`; the row count is still compared with what was sent.
 */
export async function insertJsonChunks(
  conn: DuckDBConnection,
  t: JsonTable,
  windows: readonly { readonly w: PreparedWindow['w']; readonly chunks: readonly JsonChunk[] }[],
): Promise<void> {
  const sql = insertSql(t);
  const chunks = windows.flatMap(({ w, chunks: cs }) =>
    cs.filter((c) => c.rows > 0).map((c) => ({ w, ...c })),
  );
  for (let i = 0; i < chunks.length;) {
    const projects: string[] = [];
    const days: DuckDBValue[] = [];
    const bodies: string[] = [];
    let rows = 0;
    for (; i < chunks.length && (rows === 0 || rows < CHUNK_ROWS); i++) {
      const c = chunks[i] as (typeof chunks)[number];
      projects.push(c.w.projectId);
      days.push(toDateValue(c.w.day));
      bodies.push(c.body);
      rows += c.rows;
    }
    const result = await conn.run(sql, [listValue(projects), listValue(days), listValue(bodies)]);
    if (result.rowsChanged !== rows) {
      throw new InternalError(
        `${t.table} rows did not round-trip: sent ${rows}, DuckDB inserted ${result.rowsChanged}`,
        { table: t.table, sent: rows, inserted: result.rowsChanged },
      );
    }
  }
}

/**
 * The tables of a day stream whose rows arrive as JSON (searches, caller stats, feedback by
 * page): each window's rows of every table deleted and inserted again, as a set, inside the
 * batch's transaction. The values were checked by the stream's schema and `prepare`; DuckDB's
 * JSON reader types them, and the row count is compared with what was sent.
 */
export function jsonTables(tables: readonly JsonTable[]): TableLoader {
  return {
    async replace(conn, batch, { onStep }) {
      const keys: DuckDBValue[] = [
        listValue(batch.map((b) => b.w.projectId)),
        listValue(batch.map((b) => toDateValue(b.w.day))),
      ];
      for (const t of tables) await conn.run(deleteSql(t.table), keys);
      await onStep('delete');
      for (const t of tables)
        await insertJsonChunks(
          conn,
          t,
          batch.map((p) => ({ w: p.w, chunks: (p.data as JsonTablesData)[t.table] ?? [] })),
        );
      await onStep('pages');
    },
  };
}
