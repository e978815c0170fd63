import { readFile } from 'node:fs/promises';
import {
  DuckDBTypeId,
  JSDuckDBValueConverter,
  dateValue,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBDateValue,
  type DuckDBTimestampTZValue,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
  type JS,
} from '@duckdb/node-api';
import { InternalError } from '../../errors.js';
import { dayNumber } from '../../util/day.js';
import { exclusive } from '../../util/exclusive.js';
import { renderSql } from '../sql-render.js';
import { DUCKDB_DIALECT } from './dialect.js';

export type SqlParams = readonly DuckDBValue[] | Readonly<Record<string, DuckDBValue>>;

/** A row as plain JSON-friendly JS values (see `plainValue`). */
export type Row = Record<string, unknown>;

export { dayNumber } from '../../util/day.js';

export function toDateValue(day: string): DuckDBDateValue {
  return dateValue(dayNumber(day));
}

export function toTimestampValue(at: Date | number): DuckDBTimestampTZValue {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (!Number.isFinite(ms)) throw new InternalError(`not a valid time: ${String(at)}`);
  return timestampTZValue(BigInt(Math.round(ms)) * 1000n);
}

function integerOut(value: DuckDBValue): number | string {
  const n = value as bigint;
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(n)
    : n.toString();
}

function micros(value: DuckDBValue): bigint {
  return (value as { micros: bigint }).micros;
}

function isoFromMicros(us: bigint, zoned: boolean): string {
  const ms = Number(us / 1000n) - (us % 1000n < 0n ? 1 : 0);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return us > 0n ? 'infinity' : '-infinity';
  const iso = d.toISOString();
  return zoned ? iso : iso.slice(0, -1);
}

/**
 * What callers of `queryRows` get: 64/128-bit integers become numbers when they fit exactly (and
 * decimal strings when not, so nothing is silently rounded and every row survives JSON.stringify),
 * DATE is 'YYYY-MM-DD' (the project's Day), TIMESTAMPTZ an ISO string in UTC, TIMESTAMP an ISO
 * string without zone, lists and structs converted element by element.
 */
export const plainValue: DuckDBValueConverter<unknown> = (value, type, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return integerOut(value);
    case DuckDBTypeId.DATE:
      return (value as DuckDBDateValue).toString();
    case DuckDBTypeId.TIMESTAMP_TZ:
      return isoFromMicros(micros(value), true);
    case DuckDBTypeId.TIMESTAMP:
      return isoFromMicros(micros(value), false);
    default:
      // Lists, structs and maps recurse through `converter`, i.e. back into this function.
      return JSDuckDBValueConverter(value, type, converter as DuckDBValueConverter<JS>);
  }
};

/** Runs one statement and returns its rows as plain objects (see `plainValue`). */
export async function queryRows(conn: DuckDBConnection, sql: string, params?: SqlParams): Promise<Row[]> {
  const reader = await conn.runAndReadAll(
    sql,
    params as DuckDBValue[] | Record<string, DuckDBValue> | undefined,
  );
  return reader.convertRowObjects(plainValue);
}

/** The column types of a result, for callers that format output by type (the query command). */
export async function queryWithTypes(
  conn: DuckDBConnection,
  sql: string,
  params?: SqlParams,
): Promise<{ columns: { name: string; type: DuckDBType }[]; rows: Row[] }> {
  const reader = await conn.runAndReadAll(
    sql,
    params as DuckDBValue[] | Record<string, DuckDBValue> | undefined,
  );
  const names = reader.deduplicatedColumnNames();
  const types = reader.columnTypes();
  return {
    columns: names.map((name, i) => ({ name, type: types[i] as DuckDBType })),
    rows: reader.convertRowObjects(plainValue),
  };
}

/** Runs every statement of a SQL file (no parameters). */
export async function runSqlFile(conn: DuckDBConnection, file: string): Promise<void> {
  await runSql(conn, renderSql(await readFile(file, 'utf8'), file, DUCKDB_DIALECT), file);
}

/** Runs every statement of `file`'s rendered SQL; a failure names the file. */
export async function runSql(conn: DuckDBConnection, sql: string, file: string): Promise<void> {
  try {
    await conn.run(sql);
  } catch (e) {
    throw new InternalError(`${file}: ${(e as Error).message}`, { file }, { cause: e });
  }
}

export { exclusive };

/**
 * BEGIN, `fn`, COMMIT; ROLLBACK on any error (including a failed COMMIT). Serialized with every
 * other `exclusive` user of the connection. `fn` must not call `exclusive` itself (it would wait
 * for itself).
 */
export function inTransaction<T>(conn: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  return exclusive(conn, async () => {
    await conn.run('BEGIN TRANSACTION');
    try {
      const result = await fn();
      await conn.run('COMMIT');
      return result;
    } catch (e) {
      try {
        await conn.run('ROLLBACK');
      } catch {
        // A failed COMMIT has already ended the transaction; nothing is left to roll back.
      }
      throw e;
    }
  });
}
