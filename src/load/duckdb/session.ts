import { AsyncLocalStorage } from 'node:async_hooks';
import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { exclusive, inTransaction, plainValue } from '../sql.js';
import type { Row, SqlParam, SqlSession } from '../session.js';

function duckParam(p: SqlParam): DuckDBValue {
  if (Array.isArray(p)) return listValue((p as readonly DuckDBValue[]).map((v) => v));
  return p as DuckDBValue;
}

/**
 * A DuckDB connection as a SqlSession. A connection runs one transaction at a time, so every call
 * waits its turn (`exclusive`), except the statements of the transaction in progress: those are
 * told apart by the async context they run in, so a transaction may read and write through the
 * session without waiting for itself.
 */
export function duckSession(conn: DuckDBConnection): SqlSession {
  const inside = new AsyncLocalStorage<true>();
  const turn = <T>(fn: () => Promise<T>): Promise<T> =>
    inside.getStore() === true ? fn() : exclusive(conn, fn);
  const bind = (params?: readonly SqlParam[]): DuckDBValue[] | undefined => params?.map(duckParam);
  return {
    dialect: 'duckdb',
    rows(sql, params): Promise<Row[]> {
      return turn(async () => (await conn.runAndReadAll(sql, bind(params))).convertRowObjects(plainValue));
    },
    run(sql, params): Promise<number> {
      return turn(async () => Number((await conn.run(sql, bind(params))).rowsChanged));
    },
    transaction(fn) {
      if (inside.getStore() === true) return fn();
      return inTransaction(conn, () => inside.run(true, fn));
    },
  };
}
