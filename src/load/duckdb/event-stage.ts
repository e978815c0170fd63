import {
  BIGINT,
  DuckDBVarCharType,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { EventRow } from '../event-rows.js';
import { EVENT_STAGE, insertFromStage, STAGE_COLUMNS, type EventStage } from '../event-stage.js';
import { appendColumns, withAppender } from './append.js';
import { memoryAfterObject, memoryBeforeObject, memoryForRows, ValueBytes } from './event-memory.js';

/**
 * properties is staged as DuckDB's JSON type (VARCHAR named JSON), so the insert into the table's
 * JSON column casts nothing: the cast from VARCHAR parsed every text again, and its parser's arena
 * (several times a vector's text) made 2 KB answers fail at 32 MB. The text is JSON.stringify's
 * (parse-line.ts): valid JSON by construction.
 */
const JSON_TEXT = DuckDBVarCharType.create('JSON');
const TYPES = [BIGINT, ...STAGE_COLUMNS.map((c) => (c === 'properties' ? JSON_TEXT : VARCHAR))];

/**
 * Deletes from the stage every (project, event_id) stored already, reading only the stage's days of
 * analytics_events: a repeated event has the same event_id and so the same created_at, hence the
 * same UTC day (docs/events.md says so). The table's row groups follow the load order, which is
 * time order, so DuckDB skips every row group outside the range by its min/max of day: the nightly
 * increment's check reads a few days, not the whole table (it read 2 million rows per object).
 */
async function deleteStored(conn: DuckDBConnection): Promise<void> {
  const s = EVENT_STAGE;
  const range = await conn.runAndReadAll(`SELECT min(day) AS lo, max(day) AS hi FROM ${s}`);
  const [lo, hi] = range.getRows()[0] ?? [];
  if (lo === null || lo === undefined || hi === null || hi === undefined) return;
  await conn.run(
    `DELETE FROM ${s} USING analytics_events AS e
WHERE e.day BETWEEN CAST($1 AS DATE) AND CAST($2 AS DATE)
  AND e.project_id = ${s}.project_id AND e.event_id = ${s}.event_id AND e.day = CAST(${s}.day AS DATE)`,
    [String(lo), String(hi)],
  );
}

function* stagedValues(rows: readonly EventRow[]): Generator<unknown> {
  for (const r of rows) for (const c of STAGE_COLUMNS) yield r[c];
}

/**
 * DuckDB's stage: every column text but properties (JSON), the merge casting created_at and day,
 * filled by the appender a DataChunk at a time: no JSON text of the rows is ever made. The
 * writer's memory follows the rows' largest value (event-memory.ts).
 */
export function duckEventStage(conn: DuckDBConnection): EventStage {
  let values = new ValueBytes();
  return {
    async create() {
      values = new ValueBytes();
      await memoryBeforeObject(conn, 'analytics_events');
      await conn.run(
        `CREATE OR REPLACE TEMP TABLE ${EVENT_STAGE} (ord BIGINT, ${STAGE_COLUMNS.map((c) => `${c} ${c === 'properties' ? 'JSON' : 'VARCHAR'}`).join(', ')})`,
      );
    },
    async append(rows: readonly EventRow[], firstOrd: number) {
      if (rows.length === 0) return;
      values.add(stagedValues(rows));
      await memoryForRows(conn, values);
      await withAppender(conn, EVENT_STAGE, (a) =>
        appendColumns(a, TYPES, rows.length, (start, end) => {
          const slice = rows.slice(start, end);
          const ord: DuckDBValue[] = slice.map((_, i) => BigInt(firstOrd + start + i));
          return [ord, ...STAGE_COLUMNS.map((c) => slice.map((r) => r[c]))];
        }),
      );
    },
    async insertNew(runId, _projects, loadedAt) {
      const s = EVENT_STAGE;
      await deleteStored(conn);
      const added = new Map<string, number>();
      const counts = await conn.runAndReadAll(
        `SELECT project_id, count(*)::BIGINT AS n FROM ${s} GROUP BY project_id`,
      );
      for (const [project, n] of counts.getRows()) added.set(String(project), Number(n));
      // The text columns are cast to the table's types by the insert (ISO instants with their Z).
      await conn.run(insertFromStage(), [runId, loadedAt]);
      return added;
    },
    async drop() {
      await conn.run(`DROP TABLE IF EXISTS ${EVENT_STAGE}`);
    },
    ended() {
      return memoryAfterObject(conn, 'analytics_events');
    },
  };
}
