import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { InternalError } from '../../errors.js';
import { JSON_CHUNK_ROWS } from '../window-data.js';
import { toDateValue } from './sql.js';
import type { JsonChunk, JsonTable, JsonTablesData } from '../table-spec.js';
import type { PreparedWindow } from '../prepared-window.js';
import type { DuckTableLoader } from './loader.js';

function insertSql(t: JsonTable): string {
  const names = t.columns.map(([n]) => n);
  const windows =
    'SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day, unnest($3::VARCHAR[]) AS body';
  const into = `INSERT INTO ${t.table} (project_id, ${t.dayColumn ?? 'day'}, ${names.join(', ')})`;
  if (t.byColumn === true) {
    // unnest of several lists in one SELECT zips them, row i from element i of each.
    const shape = `{${t.columns.map(([n, type]) => `"${n}":["${type}"]`).join(',')}}`;
    return `${into}
SELECT project_id, day, ${names.map((n) => `unnest(c.${n})`).join(', ')} FROM (
  SELECT project_id, day, from_json(body, '${shape}') AS c FROM (${windows})
)`;
  }
  const shape = `[{${t.columns.map(([n, type]) => `"${n}":"${type}"`).join(',')}}]`;
  return `${into}
SELECT project_id, day, ${names.map((n) => `r.${n}`).join(', ')} FROM (
  SELECT project_id, day, unnest(from_json(body, '${shape}')) AS r FROM (${windows})
)`;
}

function deleteSql(table: string): string {
  return `DELETE FROM ${table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day) AS k
WHERE ${table}.project_id = k.project_id AND ${table}.day = k.day`;
}

/**
 * Inserts windows' JSON chunks into one table: chunks of many windows go in one INSERT (up to
 * JSON_CHUNK_ROWS rows; a statement per day was most of the cost), parsed by DuckDB's own JSON reader.
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
  // The chunk itself, not a copy of its fields: a spilled chunk's text is read only for its statement.
  const chunks = windows.flatMap(({ w, chunks: cs }) => cs.filter((c) => c.rows > 0).map((c) => ({ w, c })));
  for (let i = 0; i < chunks.length;) {
    const projects: string[] = [];
    const days: DuckDBValue[] = [];
    const bodies: string[] = [];
    let rows = 0;
    for (; i < chunks.length && (rows === 0 || rows < JSON_CHUNK_ROWS); i++) {
      const { w, c } = chunks[i] as (typeof chunks)[number];
      projects.push(w.projectId);
      days.push(toDateValue(w.day));
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
export function jsonDaysLoader(tables: readonly JsonTable[]): DuckTableLoader {
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
