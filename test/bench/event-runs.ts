import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { DEFAULT_PG_SCHEMA } from '../../src/load/target.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { scratch } from './context.js';
import { BIN, runCliProcess } from './procs.js';

/** The parts of `sync --json`'s `events` the benchmark reads. */
export interface EventsPart {
  readonly loaded: number;
  readonly lines: number;
  readonly events: number;
  readonly newEvents: number;
  readonly rejected: number;
}

export interface EventSyncRun {
  readonly events: EventsPart;
  /** The process from spawn to exit: Node's start, migrations and close included. */
  readonly wallMs: number;
  /** The run's own duration (sync --json durationMs). */
  readonly durationMs: number;
  readonly maxRssMiB: number | undefined;
  readonly cpuS: number | undefined;
}

/**
 * `mintlify-etl sync --streams events --events DIR --db DB --json` as its own process (under
 * /usr/bin/time). `expectNew`: how many distinct events the folder holds (checked: a fast wrong
 * load proves nothing).
 */
export async function eventSyncProcess(dir: string, db: string, expectNew?: number): Promise<EventSyncRun> {
  const r = await runCliProcess(
    ['sync', '--streams', 'events', '--events', dir, '--db', db, '--project', 'bench', '--json'],
    { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    BIN,
  );
  if (r.code !== 0) throw new Error(`sync --streams events exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const summary = JSON.parse(r.stdout) as { status: string; durationMs: number; events: EventsPart | null };
  if (summary.status !== 'succeeded' || summary.events === null)
    throw new Error(`sync --streams events ended ${summary.status}`);
  const got = summary.events.newEvents;
  if (expectNew !== undefined && got !== expectNew)
    throw new Error(`sync loaded ${got} events, the folder holds ${expectNew}`);
  return {
    events: summary.events,
    wallMs: r.wallMs,
    durationMs: summary.durationMs,
    maxRssMiB: r.maxRssMiB,
    cpuS: r.cpuS,
  };
}

export const READ_JSON_SQL = (dir: string): string =>
  `CREATE TABLE t AS SELECT * FROM read_json('${`${dir}/**/*.jsonl`.replaceAll("'", "''")}', format='newline_delimited', ignore_errors=true)`;

/** DuckDB's own read of the folder into a table of a fresh database: the statement alone is timed. */
export function timeReadJson(dir: string): Promise<{ ms: number; checkpointMs: number; rows: number }> {
  return timeInFreshDuckDb([], READ_JSON_SQL(dir), 't');
}

/**
 * In a fresh DuckDB file: runs `setup`, then times `sql` alone (as a target states it) and the
 * CHECKPOINT after it apart (a sync's close checkpoints what it loaded: this says what that part
 * costs the statement), and counts the rows of `table`.
 */
export async function timeInFreshDuckDb(
  setup: readonly string[],
  sql: string,
  table: string,
): Promise<{ ms: number; checkpointMs: number; rows: number }> {
  const s = scratch();
  try {
    const instance = await DuckDBInstance.create(s.db);
    const conn = await instance.connect();
    try {
      for (const statement of setup) await conn.run(statement);
      const t0 = performance.now();
      await conn.run(sql);
      const ms = performance.now() - t0;
      await conn.run('CHECKPOINT');
      const checkpointMs = performance.now() - t0 - ms;
      const rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]?.[0]);
      return { ms, checkpointMs, rows };
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  } finally {
    s.remove();
  }
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const COPY_TABLE = 'public.bench_copy_events';
/** Where the sync puts its tables when --schema names none. */
const SCHEMA = DEFAULT_PG_SCHEMA;

/**
 * The loaded analytics_events rows as COPY text in `file`, and an empty table of the same shape
 * (columns, types, unique key and day index: what the loader's rows go into) for timeCopy.
 */
export async function copyRowsOut(url: string, file: string): Promise<number> {
  return withClient(url, async (c) => {
    await pipeline(c.query(copyTo(`COPY ${SCHEMA}.analytics_events TO STDOUT`)), createWriteStream(file));
    await c.query(`CREATE TABLE ${COPY_TABLE} (LIKE ${SCHEMA}.analytics_events INCLUDING ALL)`);
    return Number(
      (await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.analytics_events`)).rows[0]?.n,
    );
  });
}

/** One plain `COPY ... FROM STDIN` of the file into the emptied table, in one transaction. */
export async function timeCopy(url: string, file: string, rows: number): Promise<number> {
  return withClient(url, async (c) => {
    await c.query(`TRUNCATE ${COPY_TABLE}`);
    const t0 = performance.now();
    await c.query('BEGIN');
    const sink = c.query(copyFrom(`COPY ${COPY_TABLE} FROM STDIN`));
    await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), sink);
    await c.query('COMMIT');
    const ms = performance.now() - t0;
    if (sink.rowCount !== rows) throw new Error(`COPY read ${sink.rowCount} rows, expected ${rows}`);
    return ms;
  });
}
