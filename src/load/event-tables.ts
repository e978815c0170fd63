import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { InternalError } from '../errors.js';
import type { JsonChunk } from './json-tables.js';
import { toDateValue, toTimestampValue } from './sql.js';
import type { PreparedWindow, TableLoader } from './window-batch.js';

/** A column filled from the JSON rows: its name (= the JSON field), SQL type and JSON shape. */
export interface EventColumn {
  readonly name: string;
  readonly type: string;
  /** How DuckDB's JSON reader reads it, when not simply `type` (a LIST of STRUCT). */
  readonly json?: string;
}

/**
 * A table of keyed event records loaded by range windows: after a window [start, end) is loaded,
 * the table holds exactly the window's rows among those whose `time` lies in the range. Rows whose
 * time is NULL belong to no range: they are upserted by key and never deleted by one.
 */
export interface EventTable {
  readonly table: string;
  readonly columns: readonly EventColumn[];
  /** The key besides project_id. */
  readonly key: readonly string[];
  /** The event-time column (TIMESTAMPTZ). */
  readonly time: string;
  /** `seen`: first_seen_at kept from the row's first load, last_seen_at the fetch; else loaded_at. */
  readonly stamps: 'seen' | 'loaded';
}

/** What an event stream's `prepare` hands the loader: the window's rows as JSON chunks. */
export interface EventTableData {
  readonly chunks: readonly JsonChunk[];
}

const STAGE = 'etl_event_stage';
/** Rows per JSON text: DuckDB parses one string in one allocation, so it stays small. */
const CHUNK_ROWS = 20_000;

/**
 * An event window's rows as JSON chunks. The rows are built by the stream with exactly the
 * table's columns, so no key filter is applied: a replacer list would also strip the fields of
 * nested values (the title and url of assistant sources).
 */
export function eventChunks(rows: readonly object[]): JsonChunk[] {
  const out: JsonChunk[] = [];
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const part = rows.slice(i, i + CHUNK_ROWS);
    out.push({ rows: part.length, body: JSON.stringify(part) });
  }
  return out;
}

function shape(t: EventTable): string {
  return `[{${t.columns.map((c) => `"${c.name}":${c.json ?? `"${c.type}"`}`).join(',')}}]`;
}

function stageSql(t: EventTable): { create: string; insert: string } {
  const cols = t.columns.map((c) => `${c.name} ${c.type}`).join(', ');
  return {
    create: `CREATE OR REPLACE TEMP TABLE ${STAGE} (project_id VARCHAR, ord INTEGER, fetched_at TIMESTAMPTZ, run_id VARCHAR, first_seen TIMESTAMPTZ, ${cols})`,
    insert: `INSERT INTO ${STAGE} (project_id, ord, fetched_at, run_id, ${t.columns.map((c) => c.name).join(', ')})
SELECT project_id, ord, fetched_at, run_id, ${t.columns.map((c) => `r.${c.name}`).join(', ')} FROM (
  SELECT project_id, ord, fetched_at, run_id, unnest(from_json(body, '${shape(t)}')) AS r
  FROM (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::INTEGER[]) AS ord,
               unnest($3::TIMESTAMPTZ[]) AS fetched_at, unnest($4::VARCHAR[]) AS run_id,
               unnest($5::VARCHAR[]) AS body))`,
  };
}

function keyMatch(t: EventTable, a: string, b: string): string {
  return ['project_id', ...t.key].map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
}

async function fillStage(
  conn: DuckDBConnection,
  t: EventTable,
  batch: readonly PreparedWindow[],
): Promise<void> {
  const sql = stageSql(t);
  await conn.run(sql.create);
  let sent = 0;
  const cols: { p: string[]; ord: number[]; at: DuckDBValue[]; run: string[]; body: string[] } = {
    p: [],
    ord: [],
    at: [],
    run: [],
    body: [],
  };
  batch.forEach((b, i) => {
    for (const c of (b.data as EventTableData).chunks) {
      if (c.rows === 0) continue;
      cols.p.push(b.w.projectId);
      cols.ord.push(i);
      cols.at.push(toTimestampValue(b.w.fetchedAt));
      cols.run.push(b.w.runId);
      cols.body.push(c.body);
      sent += c.rows;
    }
  });
  if (sent === 0) return;
  const r = await conn.run(sql.insert, [
    listValue(cols.p),
    listValue(cols.ord),
    listValue(cols.at),
    listValue(cols.run),
    listValue(cols.body),
  ]);
  if (r.rowsChanged !== sent) {
    throw new InternalError(
      `${t.table} rows did not round-trip: sent ${sent}, DuckDB read ${r.rowsChanged}`,
      {
        table: t.table,
        sent,
        read: r.rowsChanged,
      },
    );
  }
}

/**
 * The loader of one event table, inside the batch's transaction: the windows' rows are staged,
 * the rows they replace are deleted (every row of the table in each window's range, and every row
 * with a key the windows bring, wherever its time was), and the staged rows inserted once per key
 * (a row with no time arrives with every window; the batch's last window wins).
 */
export function eventTable(t: EventTable): TableLoader {
  const names = t.columns.map((c) => c.name);
  const keyCols = ['project_id', ...t.key].join(', ');
  const stampCols = t.stamps === 'seen' ? 'first_seen_at, last_seen_at, run_id' : 'loaded_at, run_id';
  const stampVals =
    t.stamps === 'seen' ? 'coalesce(first_seen, fetched_at), fetched_at, run_id' : '$1::TIMESTAMPTZ, run_id';
  return {
    async replace(conn, batch, { loadedAt, onStep }) {
      await fillStage(conn, t, batch);
      if (t.stamps === 'seen') {
        await conn.run(
          `UPDATE ${STAGE} SET first_seen = o.first_seen_at FROM ${t.table} AS o WHERE ${keyMatch(t, 'o', STAGE)}`,
        );
      }
      // A window cut short by --max-pages saw only part of its range: its rows are upserted, and
      // rows it did not reach stay until a complete fetch of the range replaces them.
      const whole = batch.filter((b) => !b.w.truncated);
      if (whole.length > 0)
        await conn.run(
          `DELETE FROM ${t.table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS s, unnest($3::DATE[]) AS e) AS k
WHERE ${t.table}.project_id = k.project_id AND ${t.table}.${t.time} >= k.s::TIMESTAMPTZ AND ${t.table}.${t.time} < k.e::TIMESTAMPTZ`,
          [
            listValue(whole.map((b) => b.w.projectId)),
            listValue(whole.map((b) => toDateValue(b.w.day))),
            listValue(whole.map((b) => toDateValue(b.w.dateTo))),
          ],
        );
      await conn.run(`DELETE FROM ${t.table} USING ${STAGE} WHERE ${keyMatch(t, t.table, STAGE)}`);
      await onStep('delete');
      await conn.run(
        `INSERT INTO ${t.table} (project_id, ${names.join(', ')}, ${stampCols})
SELECT project_id, ${names.join(', ')}, ${stampVals} FROM (
  SELECT DISTINCT ON (${keyCols}) * FROM ${STAGE} ORDER BY ${keyCols}, ord DESC)`,
        t.stamps === 'seen' ? [] : [loadedAt],
      );
      await conn.run(`DROP TABLE ${STAGE}`);
      await onStep('pages');
    },
  };
}
