/**
 * PostgreSQL result values as the JSON values `query` prints, the same text the DuckDB path gives
 * for the same data (values.ts): PostgreSQL's text form of each value is read by its type OID
 * into what DuckDB's value of the matching type converts to.
 */
import pg from 'pg';
import type { Column, JsonValue } from '../query-result.js';
import { jsonFloat, jsonInteger } from '../query-result.js';

/** Type OIDs of PostgreSQL's built-in types (pg_type.oid): stable across versions. */
export const PG_OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  varchar: 1043,
  bpchar: 1042,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

/** Array type OID -> its element type OID. */
const ARRAY_OF = new Map<number, number>([
  [1000, PG_OID.bool],
  [1005, PG_OID.int2],
  [1007, PG_OID.int4],
  [1016, PG_OID.int8],
  [1028, PG_OID.oid],
  [1021, PG_OID.float4],
  [1022, PG_OID.float8],
  [1231, PG_OID.numeric],
  [1009, PG_OID.text],
  [1015, PG_OID.varchar],
  [1014, PG_OID.bpchar],
  [1182, PG_OID.date],
  [1183, PG_OID.time],
  [1115, PG_OID.timestamp],
  [1185, PG_OID.timestamptz],
  [1187, PG_OID.interval],
  [2951, PG_OID.uuid],
  [199, PG_OID.json],
  [3807, PG_OID.jsonb],
]);

const INTEGER = new Set<number>([PG_OID.int2, PG_OID.int4, PG_OID.int8, PG_OID.oid]);
const NUMERIC = new Set<number>([...INTEGER, PG_OID.float4, PG_OID.float8, PG_OID.numeric]);
const WHOLE = new Set<number>([
  ...NUMERIC,
  PG_OID.date,
  PG_OID.time,
  PG_OID.timetz,
  PG_OID.timestamp,
  PG_OID.timestamptz,
  PG_OID.interval,
  PG_OID.uuid,
  PG_OID.bool,
]);

/** A NUMERIC's text as DuckDB's DECIMAL converts (jsonDecimal): a number while a double holds it exactly. */
export function jsonNumericText(text: string): number | string {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return jsonFloat(Number(text)); // NaN, Infinity
  if (!text.includes('.')) return jsonInteger(BigInt(text));
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length <= 15 ? Number(text) : text;
}

const PG_TIME =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-]\d\d)(?::(\d\d))?(?::(\d\d))?)?$/;

/**
 * PostgreSQL's timestamp text ('2026-01-02 03:04:05.678901+00', in any session TimeZone) in the
 * ISO form of isoFromMicros: UTC, milliseconds always, the microseconds only when not zero.
 */
export function isoFromPgTimestamp(text: string, zone: 'Z' | ''): string {
  const m = PG_TIME.exec(text);
  // infinity, -infinity, BC, years past 9999, offsets in seconds (historic zones): PostgreSQL's text
  if (m === null || (m[10] !== undefined && m[10] !== '00')) return text;
  const [, y, mo, d, h, mi, s, frac = '', oh, om = '00'] = m;
  const micros = frac.padEnd(6, '0');
  const tz = zone === 'Z' && oh !== undefined ? `${oh}:${om}` : 'Z';
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${micros.slice(0, 3)}${tz}`);
  if (Number.isNaN(date.getTime())) return text;
  const rest = micros.slice(3) === '000' ? '' : micros.slice(3);
  return `${date.toISOString().slice(0, -1)}${rest}${zone}`;
}

/** jsonb keeps no key order of its own (it stores keys by length): keys are printed by name. */
function sortedKeys(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortedKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value as JsonValue;
}

const parseTextArray = (pg.types.getTypeParser as (oid: number, format: string) => (t: string) => unknown)(
  1009,
  'text',
) as (text: string) => unknown[];

/** Converts one value's text by its type OID; every other type stays PostgreSQL's text. */
export function pgJsonValue(oid: number, text: string | null): JsonValue {
  if (text === null) return null;
  if (INTEGER.has(oid)) return jsonInteger(BigInt(text));
  switch (oid) {
    case PG_OID.float8:
      return jsonFloat(Number(text));
    case PG_OID.float4:
      // DuckDB's FLOAT is read as a single-precision number widened to a double.
      return jsonFloat(Math.fround(Number(text)));
    case PG_OID.numeric:
      return jsonNumericText(text);
    case PG_OID.bool:
      return text === 't';
    case PG_OID.timestamptz:
      return isoFromPgTimestamp(text, 'Z');
    case PG_OID.timestamp:
      return isoFromPgTimestamp(text, '');
    case PG_OID.json:
      return JSON.parse(text) as JsonValue;
    case PG_OID.jsonb:
      return sortedKeys(JSON.parse(text));
    default:
      break;
  }
  const element = ARRAY_OF.get(oid);
  if (element === undefined) return text;
  const items = (list: unknown[]): JsonValue[] =>
    list.map((v) => (Array.isArray(v) ? items(v) : pgJsonValue(element, v as string | null)));
  return items(parseTextArray(text));
}

/** Every value as its text: the conversion above needs the text, not pg's or PLAIN_TYPES' parsed values. */
export const RAW_TEXT: pg.CustomTypesConfig = {
  getTypeParser: () => (text: string) => text,
};

/**
 * Columns of a PostgreSQL result as the DuckDB path names them: JSON keys deduplicated the way
 * DuckDB's node client does (the second `a` is `a:1`), numbers right-aligned, numbers, days,
 * times, ids and booleans never cut in a table.
 */
export function pgColumns(fields: readonly { name: string; dataTypeID: number }[]): Column[] {
  const seen = new Map<string, number>();
  return fields.map((f) => {
    const n = (seen.get(f.name) ?? 0) + 1;
    seen.set(f.name, n);
    return {
      name: f.name,
      key: n > 1 ? `${f.name}:${n - 1}` : f.name,
      numeric: NUMERIC.has(f.dataTypeID),
      whole: WHOLE.has(f.dataTypeID),
    };
  });
}
