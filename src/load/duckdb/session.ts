import { AsyncLocalStorage } from 'node:async_hooks';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  HUGEINT,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { exclusive, inTransaction, plainValue } from '../sql.js';
import type { Row, SqlParam, SqlSession } from '../session.js';
import { withReadHeadroom } from './read-headroom.js';
import { DUCKDB_DIALECT } from './dialect.js';

function duckParam(p: SqlParam): DuckDBValue {
  if (Array.isArray(p)) return listValue((p as readonly DuckDBValue[]).map((v) => v));
  return p as DuckDBValue;
}

const INT32 = 2 ** 31;

/**
 * The item type of a list parameter, from all its items. DuckDB's own guess looks at the first
 * item only: an empty list or one starting with NULL cannot be bound at all, and [1, 2.5] or
 * [1, 2 ** 40] would be bound as INTEGER[]. An empty or all-NULL list goes in as VARCHAR[]: the
 * statement's cast (`$1::DATE[]`) turns it into what it needs.
 */
function itemType(items: readonly unknown[]): DuckDBType {
  const present = items.filter((v) => v !== null);
  const all = (kind: string): boolean => present.every((v) => typeof v === kind);
  if (present.length === 0 || all('string')) return VARCHAR;
  if (all('boolean')) return BOOLEAN;
  if (all('bigint')) return HUGEINT;
  if (all('number')) {
    const numbers = present as number[];
    if (!numbers.every((n) => Number.isInteger(n))) return DOUBLE;
    return numbers.every((n) => n >= -INT32 && n < INT32) ? INTEGER : BIGINT;
  }
  return VARCHAR;
}

function duckType(p: SqlParam): DuckDBType | undefined {
  return Array.isArray(p) ? LIST(itemType(p as readonly unknown[])) : undefined;
}

export interface DuckSessionOptions {
  /**
   * A read-only connection: a statement outside a transaction that DuckDB refuses for memory runs
   * again under a larger limit (withReadHeadroom), so a read never fails for memory.
   */
  readonly readHeadroom?: boolean;
}

/**
 * A DuckDB connection as a SqlSession. A connection runs one transaction at a time, so every call
 * waits its turn (`exclusive`), except the statements of the transaction in progress: those are
 * told apart by the async context they run in, so a transaction may read and write through the
 * session without waiting for itself.
 */
export function duckSession(conn: DuckDBConnection, opts: DuckSessionOptions = {}): SqlSession {
  const inside = new AsyncLocalStorage<true>();
  const turn = <T>(fn: () => Promise<T>): Promise<T> =>
    inside.getStore() === true
      ? fn()
      : exclusive(conn, opts.readHeadroom === true ? () => withReadHeadroom(conn, fn) : fn);
  const bind = (params?: readonly SqlParam[]): [DuckDBValue[] | undefined, DuckDBType[] | undefined] => [
    params?.map(duckParam),
    // Scalars keep DuckDB's own inference (undefined); lists get an item type from all their items.
    params?.map(duckType) as DuckDBType[] | undefined,
  ];
  return {
    dialect: 'duckdb',
    sql: DUCKDB_DIALECT,
    rows(sql, params): Promise<Row[]> {
      return turn(async () => (await conn.runAndReadAll(sql, ...bind(params))).convertRowObjects(plainValue));
    },
    run(sql, params): Promise<number> {
      return turn(async () => Number((await conn.run(sql, ...bind(params))).rowsChanged));
    },
    transaction(fn) {
      if (inside.getStore() === true) return fn();
      return inTransaction(conn, () => inside.run(true, fn));
    },
  };
}
