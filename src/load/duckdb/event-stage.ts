import { BIGINT, VARCHAR, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { EventRow } from '../event-rows.js';
import { EVENT_STAGE, STAGE_COLUMNS, type EventStage } from '../event-stage.js';
import { appendColumns, withAppender } from './append.js';

const TYPES = [BIGINT, ...STAGE_COLUMNS.map(() => VARCHAR)];

/**
 * DuckDB's stage: every column text (the merge casts created_at, day and properties), filled by
 * the appender a DataChunk at a time: no JSON text of the rows is ever made.
 */
export function duckEventStage(conn: DuckDBConnection): EventStage {
  return {
    async create() {
      await conn.run(
        `CREATE OR REPLACE TEMP TABLE ${EVENT_STAGE} (ord BIGINT, ${STAGE_COLUMNS.map((c) => `${c} VARCHAR`).join(', ')})`,
      );
    },
    async append(rows: readonly EventRow[], firstOrd: number) {
      if (rows.length === 0) return;
      await withAppender(conn, EVENT_STAGE, (a) =>
        appendColumns(a, TYPES, rows.length, (start, end) => {
          const slice = rows.slice(start, end);
          const ord: DuckDBValue[] = slice.map((_, i) => BigInt(firstOrd + start + i));
          return [ord, ...STAGE_COLUMNS.map((c) => slice.map((r) => r[c]))];
        }),
      );
    },
    async drop() {
      await conn.run(`DROP TABLE IF EXISTS ${EVENT_STAGE}`);
    },
  };
}
