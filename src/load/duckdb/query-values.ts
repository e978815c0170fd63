import {
  DuckDBArrayValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUnionValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { jsonFloat, jsonInteger, type JsonValue } from '../query-result.js';

/**
 * A DECIMAL as a number when a double holds it exactly (15 significant digits or fewer), else
 * its exact decimal text.
 */
export function jsonDecimal(d: DuckDBDecimalValue): number | string {
  if (d.scale === 0) return jsonInteger(d.value);
  const digits = (d.value < 0n ? -d.value : d.value).toString().replace(/0+$/, '');
  return digits.length <= 15 ? Number(d.toString()) : d.toString();
}

/** ISO 8601 for a microsecond timestamp, keeping sub-millisecond digits when there are any. */
export function isoFromMicros(micros: bigint, zone: 'Z' | ''): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = micros - ms * 1000n;
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return micros.toString();
  const base = date.toISOString().slice(0, -1);
  return `${base}${rest === 0n ? '' : rest.toString().padStart(3, '0')}${zone}`;
}

/** Like isoFromMicros, with nanoseconds (TIMESTAMP_NS): the sub-millisecond digits in groups of three. */
export function isoFromNanos(nanos: bigint): string {
  const ms = nanos / 1_000_000n - (nanos % 1_000_000n < 0n ? 1n : 0n);
  const rest = nanos - ms * 1_000_000n;
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return nanos.toString();
  const digits = rest === 0n ? '' : rest.toString().padStart(6, '0').replace(/000$/, '');
  return `${date.toISOString().slice(0, -1)}${digits}`;
}

/** DuckDB's infinite dates and timestamps, as DuckDB writes them (its own text for a date is a far-off year). */
function infinity(positive: boolean): string {
  return positive ? 'infinity' : '-infinity';
}

/**
 * Converts one DuckDB value to plain JSON: integers as numbers when safe (else strings), DATE
 * as 'YYYY-MM-DD', timestamps as ISO 8601 (TIMESTAMPTZ with Z), lists and arrays as arrays,
 * structs and string-keyed maps as objects; every other type as DuckDB's own text.
 */
export function toJsonValue(value: DuckDBValue): JsonValue {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return jsonFloat(value);
    case 'bigint':
      return jsonInteger(value);
    default:
      break;
  }
  if (value instanceof DuckDBDecimalValue) return jsonDecimal(value);
  if (value instanceof DuckDBDateValue) return value.isFinite ? value.toString() : infinity(value.days > 0);
  // Every timestamp precision in the same ISO form (DuckDB's own text has a space for NS, MS, S).
  if (value instanceof DuckDBTimestampNanosecondsValue)
    return value.isFinite ? isoFromNanos(value.nanos) : infinity(value.nanos > 0n);
  if (value instanceof DuckDBTimestampMillisecondsValue)
    return value.isFinite ? isoFromMicros(value.millis * 1_000n, '') : infinity(value.millis > 0n);
  if (value instanceof DuckDBTimestampSecondsValue)
    return value.isFinite ? isoFromMicros(value.seconds * 1_000_000n, '') : infinity(value.seconds > 0n);
  if (value instanceof DuckDBTimestampTZValue)
    return value.isFinite ? isoFromMicros(value.micros, 'Z') : value.toString();
  if (value instanceof DuckDBTimestampValue)
    return value.isFinite ? isoFromMicros(value.micros, '') : value.toString();
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue)
    return value.items.map(toJsonValue);
  if (value instanceof DuckDBStructValue) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value.entries)) out[k] = toJsonValue(v);
    return out;
  }
  if (value instanceof DuckDBMapValue) {
    const keys = value.entries.map((e) => e.key);
    if (keys.every((k) => typeof k === 'string' || typeof k === 'number' || typeof k === 'bigint')) {
      const out: Record<string, JsonValue> = {};
      for (const e of value.entries) out[String(e.key)] = toJsonValue(e.value);
      return out;
    }
    return value.entries.map((e) => ({ key: toJsonValue(e.key), value: toJsonValue(e.value) }));
  }
  if (value instanceof DuckDBUnionValue) return toJsonValue(value.value);
  return value.toString();
}

const NUMERIC = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.BIGNUM,
]);

/** Numeric columns are right-aligned in tables. */
export function isNumericType(type: DuckDBType): boolean {
  return NUMERIC.has(type.typeId);
}

/** Values a table must never cut: a cut number, date or id reads as another, valid-looking one. */
export function isWholeType(type: DuckDBType): boolean {
  return NUMERIC.has(type.typeId) || WHOLE.has(type.typeId);
}

const WHOLE = new Set<DuckDBTypeId>([
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.UUID,
  DuckDBTypeId.BOOLEAN,
]);
