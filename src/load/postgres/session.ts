import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Row, SqlParam, SqlSession } from '../session.js';
import { exclusive } from '../../util/exclusive.js';
import { endedOr } from './ended.js';
import { POSTGRES_DIALECT } from './dialect.js';

/** PostgreSQL type OIDs whose text form we read the same way as DuckDB's values (see Row). */
const OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  int8Array: 1016,
  numericArray: 1231,
  dateArray: 1182,
  timestamptzArray: 1185,
} as const;

function integer(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** PostgreSQL's timestamptz text (session zone UTC: '2026-01-02 03:04:05.678901+00') as ISO in UTC with ms. */
function isoFromPg(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  const d = new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(d.getTime()) ? text : d.toISOString();
}

function isoLocal(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  const d = new Date(`${text.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? text : d.toISOString().slice(0, -1);
}

const builtinParser = pg.types.getTypeParser as (oid: number, format: string) => (text: string) => unknown;
const arrayParser = builtinParser(1009 /* text[] */, 'text') as (text: string) => (string | null)[];
const mapArray =
  (f: (s: string) => unknown) =>
  (text: string): unknown[] =>
    arrayParser(text).map((v) => (v === null ? null : f(v)));

/** The type parsers every client of ours uses: values come out as DuckDB's `plainValue` gives them. */
export const PLAIN_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    switch (oid) {
      case OID.int8:
        return integer;
      case OID.numeric:
        return Number;
      case OID.date:
        return String;
      case OID.timestamptz:
        return isoFromPg;
      case OID.timestamp:
        return isoLocal;
      case OID.int8Array:
        return mapArray(integer);
      case OID.numericArray:
        return mapArray(Number);
      case OID.dateArray:
        return mapArray(String);
      case OID.timestamptzArray:
        return mapArray(isoFromPg);
      default:
        return builtinParser(oid, format ?? 'text');
    }
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function pgParam(p: SqlParam): unknown {
  if (typeof p === 'bigint') return p.toString();
  if (Array.isArray(p))
    return (p as readonly unknown[]).map((v) => (typeof v === 'bigint' ? v.toString() : v));
  return p;
}

/**
 * BEGIN, `fn`, COMMIT on the client; ROLLBACK on any error (a rollback that fails, on a connection
 * already gone, does not hide the error that caused it).
 */
export async function inPgTransaction<T>(client: pg.ClientBase, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const out = await fn();
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * A connected client as a SqlSession. One client runs one transaction at a time: calls from
 * outside the transaction in progress wait for it to end (the statements of the transaction itself
 * are told apart by their async context), so a reader never lands inside a writer's transaction.
 */
export function pgSession(client: pg.ClientBase, label = 'the database'): SqlSession {
  const inside = new AsyncLocalStorage<true>();
  const turn = <T>(fn: () => Promise<T>): Promise<T> =>
    inside.getStore() === true ? fn() : exclusive(client, fn);
  // A connection the server ended is said as such, once, with what to do (ended.ts).
  const query = (sql: string, params?: readonly SqlParam[]): Promise<pg.QueryResult> =>
    client.query(sql, params?.map(pgParam)).catch((e: unknown) => {
      throw endedOr(e, label);
    });
  return {
    dialect: 'postgres',
    sql: POSTGRES_DIALECT,
    rows(sql, params): Promise<Row[]> {
      return turn(async () => (await query(sql, params)).rows as Row[]);
    },
    run(sql, params): Promise<number> {
      return turn(async () => (await query(sql, params)).rowCount ?? 0);
    },
    transaction(fn) {
      if (inside.getStore() === true) return fn();
      return exclusive(client, () => inPgTransaction(client, () => inside.run(true, fn)));
    },
  };
}
