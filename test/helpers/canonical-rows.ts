import {
  DuckDBDateValue,
  DuckDBListValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import pg from 'pg';

/*
 * One spelling for a value read from either destination, so rows compare with toEqual: days
 * 'YYYY-MM-DD', times ISO in UTC with microseconds, integers as decimal strings, doubles rounded at
 * 1e-9 (sums over floats differ in the last bits between engines), booleans 'true'/'false', lists
 * as arrays and structs / JSON objects with sorted keys. Rows sort by their JSON text.
 */
export type Canonical = string | null | Canonical[] | { [k: string]: Canonical };

export interface CanonicalResult {
  readonly columns: string[];
  /** DuckDB type names, or PostgreSQL type OIDs, per column: compared by `sameTypeFamily`. */
  readonly types: string[];
  readonly rows: Canonical[][];
}

function rounded(x: number): string {
  return Number.isFinite(x) ? String(Math.round(x * 1e9) / 1e9) : String(x);
}

/** ISO 8601 in UTC with six fractional digits, from microseconds since the epoch. */
export function isoMicros(us: bigint): string {
  const frac = ((us % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const ms = Number((us - frac) / 1000n);
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac.toString().padStart(6, '0')}Z`;
}

function sortedObject(entries: [string, Canonical][]): { [k: string]: Canonical } {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function duckValue(v: DuckDBValue): Canonical {
  if (v === null) return null;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return rounded(v);
  if (typeof v === 'string') return v;
  if (v instanceof DuckDBDateValue) return v.toString();
  if (v instanceof DuckDBTimestampTZValue) return isoMicros(v.micros);
  if (v instanceof DuckDBListValue) return v.items.map(duckValue);
  if (v instanceof DuckDBStructValue) {
    return sortedObject(Object.entries(v.entries).map(([k, x]) => [k, duckValue(x)]));
  }
  throw new Error(`no canonical form for the DuckDB value ${String(v)}`);
}

function jsonValue(v: unknown): Canonical {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map(jsonValue);
  if (typeof v === 'object') return sortedObject(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  if (typeof v === 'number') return rounded(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v;
  throw new Error(`not a JSON value: ${typeof v}`);
}

const PG_TIMESTAMPTZ =
  /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?([+-]\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;

/** PostgreSQL's timestamptz text in any session TimeZone ('2026-01-02 03:04:05.6+05:45') as UTC ISO with microseconds. */
function utcMicros(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) throw new Error(`not a timestamptz: ${text}`);
  const sign = m[3]?.startsWith('-') ? -1 : 1;
  const offsetS = sign * (Math.abs(Number(m[3])) * 3600 + Number(m[4] ?? 0) * 60 + Number(m[5] ?? 0));
  const localS = BigInt(Date.parse(`${(m[1] ?? '').replace(' ', 'T')}Z`) / 1000);
  const frac = BigInt((m[2] ?? '').padEnd(6, '0'));
  return isoMicros((localS - BigInt(offsetS)) * 1_000_000n + frac);
}

// 1009 is text[]: the OID is not in @types/pg's TypeId list, the parser handles quoting and NULLs.
const parseTextArray = (pg.types.getTypeParser as (oid: number) => (s: string) => (string | null)[])(1009);

/** PostgreSQL's text output (any session TimeZone, ISO DateStyle) for the type OIDs the schema uses. */
export function pgValue(text: string | null, oid: number): Canonical {
  if (text === null) return null;
  switch (oid) {
    case 16:
      return text === 't' ? 'true' : 'false';
    case 20:
    case 21:
    case 23:
    case 25:
    case 1043:
    case 1082:
      return text;
    case 700:
    case 701:
      return rounded(Number(text));
    case 1184:
      return utcMicros(text);
    case 1182:
    case 1009:
    case 1015:
      return parseTextArray(text);
    case 114:
    case 3802:
      return jsonValue(JSON.parse(text));
    default:
      throw new Error(`no canonical form for PostgreSQL type ${oid} (${text})`);
  }
}

function sortRows(rows: Canonical[][]): Canonical[][] {
  return rows
    .map((r) => [JSON.stringify(r), r] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r);
}

export async function duckCanonical(conn: DuckDBConnection, sql: string): Promise<CanonicalResult> {
  const reader = await conn.runAndReadAll(sql);
  return {
    columns: reader.columnNames(),
    // JSON is VARCHAR under an alias: the alias names the contract type (PostgreSQL's jsonb).
    types: reader.columnTypes().map((t) => t.alias ?? t.toString()),
    rows: sortRows(reader.getRows().map((r) => r.map(duckValue))),
  };
}

/** Every value arrives as PostgreSQL's text: no parser rounds a time to milliseconds first. */
const RAW_TYPES = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

export async function pgCanonical(client: pg.ClientBase, sql: string): Promise<CanonicalResult> {
  const res = await client.query<unknown[]>({ text: sql, rowMode: 'array', types: RAW_TYPES });
  return {
    columns: res.fields.map((f) => f.name),
    types: res.fields.map((f) => String(f.dataTypeID)),
    rows: sortRows(
      res.rows.map((r) => r.map((v, i) => pgValue(v as string | null, res.fields[i]?.dataTypeID ?? 0))),
    ),
  };
}

/** The PostgreSQL type OID each DuckDB type of the contract becomes. */
const PG_TYPE_OF: Record<string, string> = {
  BIGINT: '20',
  INTEGER: '23',
  DOUBLE: '701',
  DATE: '1082',
  'TIMESTAMP WITH TIME ZONE': '1184',
  BOOLEAN: '16',
  VARCHAR: '25',
  JSON: '3802',
  'DATE[]': '1182',
  'VARCHAR[]': '1009',
  'STRUCT("title" VARCHAR, "url" VARCHAR)[]': '3802',
};

/** The DuckDB types whose PostgreSQL OID is not the one the contract names, as "column: DUCK -> oid". */
export function typeMismatches(duck: CanonicalResult, postgres: CanonicalResult): string[] {
  return duck.columns.flatMap((c, i) => {
    const want = PG_TYPE_OF[duck.types[i] ?? ''] ?? `? (${duck.types[i]})`;
    return want === postgres.types[i]
      ? []
      : [`${c}: ${duck.types[i]} -> ${postgres.types[i]} (want ${want})`];
  });
}
