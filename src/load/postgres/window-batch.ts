import type pg from 'pg';
import { dayNumber } from '../../util/day.js';
import { markWindowFailed, type WindowFailure } from '../failed-windows.js';
import { batchFailure, lastPerWindow } from '../batch-rules.js';
import type { BatchStep, PreparedWindow } from '../prepared-window.js';
import type { TableSpec } from '../table-spec.js';
import { bigintText } from './copy-text.js';
import { replacePostgres } from './table-loaders.js';
import { inPgTransaction, pgSession } from './session.js';
import { TableLockedError } from '../../errors.js';
import { formatDuration } from '../../util/duration.js';
import { lockTimeoutMs } from './connect.js';
import { holdersOf } from './migrate.js';

export interface PgBatchOptions {
  /**
   * Fault-injection seam for tests: called inside the transaction after each step ('delete',
   * 'site', 'pages' per stream, 'window' last), as on DuckDB.
   */
  onStep?: (step: BatchStep) => void | Promise<void>;
  /** How errors name the destination (default: host:port/database of the client; never a password). */
  destination?: string;
}

/** host:port/database as the client connected to it: what an error may show. */
export function describeClient(client: pg.ClientBase): string {
  const c = client as Partial<Pick<pg.Client, 'host' | 'port' | 'database'>>;
  return `PostgreSQL ${c.host ?? '?'}:${c.port ?? '?'}/${c.database ?? '?'}`;
}

const DELETE_WINDOWS = `DELETE FROM sync_windows USING unnest($1::text[], $2::text[], $3::date[]) AS k(project_id, stream, day)
WHERE sync_windows.project_id = k.project_id AND sync_windows.stream = k.stream AND sync_windows.window_start = k.day`;

const INSERT_WINDOWS = `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows,
  truncated, api_totals_total, attempts, fetched_at, run_id, error)
SELECT p, s, ws, we, 'loaded', pg, r, t, a, n, f, ru, NULL
FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::integer[], $6::integer[], $7::boolean[],
  $8::bigint[], $9::integer[], $10::timestamptz[], $11::text[]) AS k(p, s, ws, we, pg, r, t, a, n, f, ru)`;

function windowRecords(ranges: readonly PreparedWindow[]): unknown[] {
  return [
    ranges.map((b) => b.w.projectId),
    ranges.map((b) => b.w.stream),
    ranges.map((b) => b.w.day),
    ranges.map((b) => b.w.dateTo),
    ranges.map((b) => b.w.pagesFetched),
    ranges.map((b) => b.rows),
    ranges.map((b) => b.w.truncated),
    ranges.map((b) => bigintText(b.w.apiTotalsTotal)),
    ranges.map((b) => b.w.attempts),
    ranges.map((b) => b.w.fetchedAt.toISOString()),
    ranges.map((b) => b.w.runId),
  ];
}

async function loadInTransaction(
  client: pg.ClientBase,
  batch: readonly PreparedWindow[],
  opts: PgBatchOptions,
): Promise<void> {
  // Milliseconds, as DuckDB's loader stamps them: both destinations hold the same loaded_at.
  const loadedAt = new Date().toISOString();
  const onStep = async (step: BatchStep): Promise<void> => {
    await opts.onStep?.(step);
  };
  const bySpec = new Map<TableSpec, PreparedWindow[]>();
  for (const p of batch) bySpec.set(p.spec, [...(bySpec.get(p.spec) ?? []), p]);
  const ranges = batch.filter((b) => b.w.item === undefined);
  await inPgTransaction(client, async () => {
    if (ranges.length > 0)
      await client.query(DELETE_WINDOWS, [
        ranges.map((b) => b.w.projectId),
        ranges.map((b) => b.w.stream),
        ranges.map((b) => b.w.day),
      ]);
    for (const [spec, windows] of bySpec) await replacePostgres(client, spec, windows, { loadedAt, onStep });
    // The window record is the last write of the transaction: a day is marked loaded only
    // together with its rows, never before and never without them.
    if (ranges.length > 0) await client.query(INSERT_WINDOWS, windowRecords(ranges));
    await onStep('window');
  });
}

/**
 * `loadPreparedBatch` for PostgreSQL: the windows of any streams in ONE transaction, the same
 * table contents DuckDB's loader gives (the last window of a key wins), a failure or a kill
 * leaving every window of the batch all-old. The client must be outside a transaction, its
 * search_path at the destination's schema (as `migratePostgres` leaves it).
 */
export async function loadPreparedBatchPostgres(
  client: pg.ClientBase,
  windows: readonly PreparedWindow[],
  opts: PgBatchOptions = {},
): Promise<void> {
  if (windows.length === 0) return;
  try {
    for (const p of windows) dayNumber(p.w.day);
    await loadInTransaction(client, lastPerWindow(windows), opts);
  } catch (e) {
    if (isLockTimeout(e)) throw await tableLocked(client, windows, e);
    throw batchFailure(e, windows, opts.destination ?? describeClient(client));
  }
}

function tablesOf(spec: TableSpec): string[] {
  switch (spec.kind) {
    case 'site-pages':
      return [spec.siteTable, spec.pageTable];
    case 'json-days':
      return spec.tables.map((t) => t.table);
    case 'events':
      return [spec.table.table];
    case 'threads':
      return [spec.messages.table];
  }
}

/** PostgreSQL's lock_not_available: the session's lock_timeout ran out. */
function isLockTimeout(e: unknown): boolean {
  return (e as { code?: string } | undefined)?.code === '55P03';
}

/** Who holds the batch's tables, said once for the run (the transaction has rolled back). */
async function tableLocked(
  client: pg.ClientBase,
  windows: readonly PreparedWindow[],
  cause: unknown,
): Promise<TableLockedError> {
  const tables = [...new Set(windows.flatMap((p) => tablesOf(p.spec)))];
  const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '?';
  const held = await holdersOf(client, schema, [...tables, 'sync_windows']).catch(() => []);
  const who =
    held.length === 0
      ? 'another session (it has let go since)'
      : held
          .slice(0, 3)
          .map(
            (h) =>
              `server process ${h.pid}${h.application ? ` (${JSON.stringify(h.application)})` : ''}${h.since ? `, in a transaction since ${h.since}` : ''}`,
          )
          .join('; ');
  const table = held[0]?.relation ?? tables[0] ?? 'a table';
  return new TableLockedError(
    `${table} of schema ${schema} is locked by ${who}: the run waited ${formatDuration(lockTimeoutMs())} for it and stopped, keeping what it loaded; the rest waits for the next run (or end that transaction, e.g. SELECT pg_terminate_backend(${held[0]?.pid ?? 'PID'}))`,
    { schema, table, holderPid: held[0]?.pid ?? null },
    { cause },
  );
}

/** `markWindowFailed` on a PostgreSQL client: the same statement, which both dialects run. */
export function markWindowFailedPostgres(client: pg.ClientBase, f: WindowFailure): Promise<boolean> {
  return markWindowFailed(pgSession(client), f);
}
