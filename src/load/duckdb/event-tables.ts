import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { InternalError } from '../../errors.js';
import type { EventTable, EventTableData } from '../table-spec.js';
import { toDateValue, toTimestampValue } from './sql.js';
import type { PreparedWindow } from '../prepared-window.js';
import type { DuckTableLoader } from './loader.js';

const STAGE = 'etl_event_stage';
function shape(t: EventTable): string {
  return `[{${t.columns.map((c) => `"${c.name}":${c.json ?? `"${c.type}"`}`).join(',')}}]`;
}

function stageSql(t: EventTable): { create: string; insert: string } {
  const cols = t.columns.map((c) => `${c.name} ${c.type}`).join(', ');
  return {
    create: `CREATE OR REPLACE TEMP TABLE ${STAGE} (project_id VARCHAR, ord INTEGER, window_start DATE, fetched_at TIMESTAMPTZ, run_id VARCHAR, first_seen TIMESTAMPTZ, ${cols})`,
    insert: `INSERT INTO ${STAGE} (project_id, ord, window_start, fetched_at, run_id, ${t.columns.map((c) => c.name).join(', ')})
SELECT $1::VARCHAR, $2::INTEGER, $3::DATE, $4::TIMESTAMPTZ, $5::VARCHAR, ${t.columns.map((c) => `r.${c.name}`).join(', ')}
FROM (SELECT unnest(from_json($6::VARCHAR, '${shape(t)}')) AS r)`,
  };
}

function keyMatch(t: EventTable, a: string, b: string): string {
  return ['project_id', ...t.key].map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
}

/** The windows' rows into the staging table, one chunk per statement (bounded memory). */
async function fillStage(
  conn: DuckDBConnection,
  t: EventTable,
  batch: readonly PreparedWindow[],
): Promise<void> {
  const sql = stageSql(t);
  await conn.run(sql.create);
  for (const [i, b] of batch.entries()) {
    for (const c of (b.data as EventTableData).chunks) {
      if (c.rows === 0) continue;
      const r = await conn.run(sql.insert, [
        b.w.projectId,
        i,
        toDateValue(b.w.day),
        toTimestampValue(b.w.fetchedAt),
        b.w.runId,
        c.body,
      ]);
      if (r.rowsChanged !== c.rows) {
        throw new InternalError(
          `${t.table} rows did not round-trip: sent ${c.rows}, DuckDB read ${r.rowsChanged}`,
          { table: t.table, sent: c.rows, read: r.rowsChanged },
        );
      }
    }
  }
}

/**
 * The loader of one event table, inside the batch's transaction: the windows' rows are staged,
 * the rows they replace are deleted (every row of the table in each window's range, and every row
 * with a key the windows bring, wherever its time was), and the staged rows inserted once per key
 * (a row with no time arrives with every window; the batch's last window wins).
 */
export function eventsLoader(t: EventTable): DuckTableLoader {
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
      // A window owns the rows it served last (window_start): a re-fetch deletes those it no
      // longer serves, so the result does not depend on the order windows load in. It deletes
      // none at or after the end of what it read: a read of part of a cell (the running one, up
      // to yesterday) leaves the rest as an earlier, wider read loaded it. A window cut short by
      // --max-pages saw only part of its range: its rows are upserted, and rows it did not reach
      // stay until a complete fetch replaces them. Rows with no time belong to no range and are
      // never deleted by one.
      const whole = batch.filter((b) => !b.w.truncated);
      if (whole.length > 0)
        await conn.run(
          `DELETE FROM ${t.table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS s, unnest($3::TIMESTAMPTZ[]) AS e) AS k
WHERE ${t.table}.project_id = k.project_id AND ${t.table}.window_start = k.s AND ${t.table}.${t.time} < k.e`,
          [
            listValue(whole.map((b) => b.w.projectId)),
            listValue(whole.map((b) => toDateValue(b.w.day))),
            listValue(whole.map((b) => toTimestampValue(Date.parse(`${b.w.dateTo}T00:00:00Z`)))),
          ],
        );
      await conn.run(`DELETE FROM ${t.table} USING ${STAGE} WHERE ${keyMatch(t, t.table, STAGE)}`);
      await onStep('delete');
      // One row per key: the batch's last window wins. Ranked on the key columns alone, so the
      // wide columns (answers, comments) are never sorted.
      await conn.run(
        `DELETE FROM ${STAGE} WHERE rowid IN (
  SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY ${keyCols} ORDER BY ord DESC) AS n FROM ${STAGE})
  WHERE n > 1)`,
      );
      await conn.run(
        `INSERT INTO ${t.table} (project_id, ${names.join(', ')}, window_start, ${stampCols})
SELECT project_id, ${names.join(', ')}, window_start, ${stampVals} FROM ${STAGE}`,
        t.stamps === 'seen' ? [] : [loadedAt],
      );
      await conn.run(`DROP TABLE ${STAGE}`);
      await onStep('pages');
    },
  };
}
