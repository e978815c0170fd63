import type { Database } from './duckdb/database.js';
import { duckSession } from './duckdb/session.js';
import type { SqlSession } from './session.js';

/**
 * What the state functions (run records, the request ledger, the window ledger) accept: a session
 * on either destination, or an open DuckDB database for the callers written before sessions (it
 * may carry its own `session`; if not, one over its connection is made once and kept).
 */
export type SessionLike = SqlSession | (Database & { readonly session?: SqlSession });

const sessions = new WeakMap<object, SqlSession>();

export function sessionOf(target: SessionLike): SqlSession {
  if ('dialect' in target) return target;
  if (target.session !== undefined) return target.session;
  // One session per connection: a transaction opened through it lets these functions run inside.
  let s = sessions.get(target.connection);
  if (s === undefined) {
    s = duckSession(target.connection);
    sessions.set(target.connection, s);
  }
  return s;
}
