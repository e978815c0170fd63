/**
 * `query` on a PostgreSQL destination: the user's SQL in a READ ONLY transaction that is always
 * rolled back, refused before anything runs when it could leave that mode (pg-guard.ts), the
 * whole command under --timeout (pg-deadline.ts), the last statement's rows streamed through a
 * server-side cursor in batches (bounded memory, whatever the result's size) and converted to the
 * same JSON values as the DuckDB path gives for the same data.
 */
import pg from 'pg';
import { SqlError } from '../../errors.js';
import type { Column, JsonValue } from '../query-result.js';
import { pgColumns, pgJsonValue, RAW_TEXT } from './query-values.js';
import { QueryDeadline, timeoutError } from './query-deadline.js';
import { refuseHashKey } from '../hash-key-guard.js';
import { refuseLeavingReadOnly } from './query-guard.js';
import { isCursorQuery, type Statement } from './statements.js';
import type { QueryStream } from '../query-result.js';

/** What a query may take by default before it is cancelled. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5 * 60_000;

/**
 * Rows per FETCH: DuckDB's chunk size. Measured on 5.48M rows (test/bench/postgres-read.ts, a
 * loaded 2-core machine, so times are rough): 500 rows 43-67 s and 157-160 MiB peak RSS, 2,048
 * 39-53 s and 161-166 MiB, 10,000 43-44 s and 193-195 MiB.
 */
export const FETCH_ROWS = 2048;

export interface PgQueryOptions {
  /** What the whole command may take (every statement and FETCH, and the time between), in ms. */
  readonly timeoutMs?: number;
  /** Rows per FETCH (test seam). */
  readonly fetchRows?: number;
}

const CURSOR = 'mintlify_etl_query';

interface RawResult {
  readonly fields: readonly { name: string; dataTypeID: number }[];
  readonly rows: (string | null)[][];
}

/** One statement through the extended protocol: PostgreSQL runs exactly one, never a list. */
async function runOne(client: pg.ClientBase, text: string): Promise<RawResult> {
  // queryMode is pg's (8.11+), missing from its types.
  const config = { text, rowMode: 'array', types: RAW_TEXT, queryMode: 'extended' } as pg.QueryArrayConfig;
  const result: RawResult = await client.query(config);
  return result;
}

/** A PostgreSQL error as one line, with a hint for the refusals that are `query`'s own rules. */
export function pgSqlError(e: unknown, timeoutMs: number): unknown {
  // The server's errors only: a lost connection (EPIPE, ECONNRESET) is the destination's, not the SQL's.
  if (!(e instanceof pg.DatabaseError)) return e;
  const code = e.code ?? '';
  const message = e.message.split(/\r?\n/)[0] ?? e.message;
  let hint = '';
  if (code === '25006')
    hint =
      ' (query is read-only: it runs in a read-only transaction that is rolled back, so nothing is changed; write with psql or your own client)';
  else if (code === '57014' && /statement timeout/.test(message)) return timeoutError(timeoutMs, e);
  return new SqlError(`${message}${hint}`, { sqlstate: code }, { cause: e });
}

function convert(fields: RawResult['fields'], rows: RawResult['rows']): JsonValue[][] {
  return rows.map((r) => r.map((v, i) => pgJsonValue(fields[i]?.dataTypeID ?? 0, v)));
}

/** A statement whose rows are discarded (all but the last): a query's rows are skipped server-side. */
async function runDiscarded(client: pg.ClientBase, statement: Statement): Promise<void> {
  if (!isCursorQuery(statement)) {
    await runOne(client, statement.text);
    return;
  }
  await runOne(client, `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${statement.text}`);
  await runOne(client, `MOVE FORWARD ALL IN ${CURSOR}`);
  await runOne(client, `CLOSE ${CURSOR}`);
}

/** Runs `sql` in one round trip (the simple protocol takes several statements) and gives the last result. */
async function lastResult(client: pg.ClientBase, text: string): Promise<RawResult> {
  const results = (await client.query({
    text,
    rowMode: 'array',
    types: RAW_TEXT,
  } as pg.QueryArrayConfig)) as unknown as RawResult[];
  const last = results.at(-1);
  if (last === undefined) throw new Error('FETCH gave no result');
  return last;
}

/** The last statement's rows through a cursor, FETCH by FETCH, each bounded by the time left. */
async function cursorStream(
  client: pg.ClientBase,
  statement: Statement,
  deadline: QueryDeadline,
  fetchRows: number,
  wrap: (e: unknown) => unknown,
): Promise<QueryStream> {
  await runOne(client, `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${statement.text}`);
  // The bounds are set again with each FETCH, to the time left: the query could have lifted them
  // while it ran, and the time spent writing rows counts too.
  const fetch = (): Promise<RawResult> =>
    lastResult(client, `${deadline.boundsSql()}; FETCH FORWARD ${fetchRows} FROM ${CURSOR}`);
  const first = await fetch();
  const columns: readonly Column[] = pgColumns(first.fields);
  async function* batches(): AsyncGenerator<JsonValue[][]> {
    let batch = first;
    for (;;) {
      if (batch.rows.length > 0) yield convert(first.fields, batch.rows);
      if (batch.rows.length < fetchRows) return;
      try {
        batch = await fetch();
      } catch (e) {
        throw wrap(e);
      }
    }
  }
  return { columns, batches: batches() };
}

/** A last statement a cursor cannot run (SHOW, EXPLAIN, DO): its rows at once, as PostgreSQL gives them. */
async function plainStream(client: pg.ClientBase, statement: Statement): Promise<QueryStream> {
  const result = await runOne(client, statement.text);
  const rows = convert(result.fields, result.rows);
  // eslint-disable-next-line @typescript-eslint/require-await -- the rows are here already
  async function* batches(): AsyncGenerator<JsonValue[][]> {
    if (rows.length > 0) yield rows;
  }
  return { columns: pgColumns(result.fields), batches: batches() };
}

/**
 * Runs the user's SQL on PostgreSQL (several statements allowed: the last one's rows are given to
 * `consume`, as on DuckDB) in a READ ONLY transaction, rolled back when `consume` is done or
 * anything failed: DDL and DML are refused by PostgreSQL, nothing is ever changed. SQL that could
 * leave read-only mode is refused before anything runs (RefusedStatement). Errors of the SQL (a
 * refusal, a timeout, a typo) are SqlError with PostgreSQL's first line.
 */
export async function withPostgresQuery<T>(
  client: pg.ClientBase,
  sql: string,
  opts: PgQueryOptions,
  consume: (stream: QueryStream) => Promise<T>,
): Promise<T> {
  const statements = refuseLeavingReadOnly(sql);
  refuseHashKey(sql);
  return runReadOnly(client, statements, opts, consume);
}

/**
 * The statements in a READ ONLY transaction under one deadline. Its first statement is a query
 * (the deadline's bounds): after it PostgreSQL refuses `SET TRANSACTION READ WRITE` and its
 * spellings ("must be called before any query"), so even a statement the guard missed cannot
 * leave read-only mode.
 */
export async function runReadOnly<T>(
  client: pg.ClientBase,
  statements: readonly Statement[],
  opts: PgQueryOptions,
  consume: (stream: QueryStream) => Promise<T>,
): Promise<T> {
  const last = statements.at(-1);
  if (last === undefined) throw new SqlError('the SQL holds no statement (only blanks or comments)');
  const deadline = new QueryDeadline(opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
  const wrap = (e: unknown): unknown => pgSqlError(deadline.explain(e), deadline.timeoutMs);
  deadline.arm(client);
  try {
    await client.query('BEGIN TRANSACTION READ ONLY');
    let stream: QueryStream;
    try {
      for (const statement of statements.slice(0, -1)) {
        await client.query(deadline.boundsSql());
        await runDiscarded(client, statement);
      }
      await client.query(deadline.boundsSql());
      stream = isCursorQuery(last)
        ? await cursorStream(client, last, deadline, opts.fetchRows ?? FETCH_ROWS, wrap)
        : await plainStream(client, last);
    } catch (e) {
      throw wrap(e);
    }
    return await consume(stream);
  } finally {
    // Our timer stays armed through the ROLLBACK: a stalled connection cannot hold the command.
    await client.query('ROLLBACK').catch(() => undefined);
    deadline.disarm();
  }
}
