import {
  BIGINT,
  BOOLEAN,
  DATE,
  INTEGER,
  TIMESTAMPTZ,
  VARCHAR,
  listValue,
  type DuckDBConnection,
} from '@duckdb/node-api';
import { appendColumns, withAppender } from './append.js';
import { batchFailure, lastPerWindow } from '../batch-rules.js';
import { withMemoryFor } from './memory-for-values.js';
import type { Database } from './database.js';
import { inTransaction, toDateValue, toTimestampValue } from './sql.js';

import type { BatchLoadOptions, BatchStep, PreparedWindow } from '../prepared-window.js';
import type { TableSpec } from '../table-spec.js';
import { duckLoaderOf } from './table-loaders.js';

/** sync_windows in its column order. */
const WINDOW_COLUMNS = [
  VARCHAR, // project_id
  VARCHAR, // stream
  DATE, // window_start
  DATE, // window_end
  VARCHAR, // status
  INTEGER, // pages
  INTEGER, // rows
  BOOLEAN, // truncated
  BIGINT, // api_totals_total
  INTEGER, // attempts
  TIMESTAMPTZ, // fetched_at
  VARCHAR, // run_id
  VARCHAR, // error
];

const DELETE_WINDOWS = `DELETE FROM sync_windows USING (
  SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::VARCHAR[]) AS stream, unnest($3::DATE[]) AS day) AS k
WHERE sync_windows.project_id = k.project_id AND sync_windows.stream = k.stream AND sync_windows.window_start = k.day`;

async function appendWindowRecords(conn: DuckDBConnection, batch: readonly PreparedWindow[]): Promise<void> {
  await withAppender(conn, 'sync_windows', (a) =>
    appendColumns(a, WINDOW_COLUMNS, batch.length, (s, e) => {
      const part = batch.slice(s, e);
      return [
        part.map((b) => b.w.projectId),
        part.map((b) => b.w.stream),
        part.map((b) => toDateValue(b.w.day)),
        part.map((b) => toDateValue(b.w.dateTo)),
        part.map(() => 'loaded'),
        part.map((b) => b.w.pagesFetched),
        part.map((b) => b.rows),
        part.map((b) => b.w.truncated),
        part.map((b) => (b.w.apiTotalsTotal === null ? null : BigInt(b.w.apiTotalsTotal))),
        part.map((b) => b.w.attempts),
        part.map((b) => toTimestampValue(b.w.fetchedAt)),
        part.map((b) => b.w.runId),
        part.map(() => null),
      ];
    }),
  );
}

async function loadBatchInTransaction(
  db: Database,
  batch: readonly PreparedWindow[],
  opts: BatchLoadOptions,
): Promise<void> {
  const conn = db.connection;
  const loadedAt = toTimestampValue(Date.now());
  const onStep = async (step: BatchStep): Promise<void> => {
    await opts.onStep?.(step);
  };
  // Streams in the order they first appear: each replaces its windows' rows in its own tables.
  const bySpec = new Map<TableSpec, PreparedWindow[]>();
  for (const p of batch) bySpec.set(p.spec, [...(bySpec.get(p.spec) ?? []), p]);
  const ranges = batch.filter((b) => b.w.item === undefined);
  const longest = Math.max(0, ...batch.map((b) => b.largest?.chars ?? 0));
  await withMemoryFor(
    conn,
    longest,
    () =>
      inTransaction(conn, async () => {
        if (ranges.length > 0)
          await conn.run(DELETE_WINDOWS, [
            listValue(ranges.map((b) => b.w.projectId)),
            listValue(ranges.map((b) => b.w.stream)),
            listValue(ranges.map((b) => toDateValue(b.w.day))),
          ]);
        for (const [spec, windows] of bySpec)
          await duckLoaderOf(spec).replace(conn, windows, { loadedAt, onStep });
        // The window record is the last write of the transaction: a day is marked loaded only
        // together with its rows, never before and never without them.
        if (ranges.length > 0) await appendWindowRecords(conn, ranges);
        await onStep('window');
      }),
    opts.maxMemoryBytes,
  );
}

/**
 * Group commit: loads many prepared windows of any streams in ONE transaction (a commit costs
 * about 15 ms whatever its size, so one per window was the loader's main cost). The batch is
 * atomic: a failure or a crash leaves every window of it all-old.
 */
export async function loadPreparedBatch(
  db: Database,
  windows: readonly PreparedWindow[],
  opts: BatchLoadOptions = {},
): Promise<void> {
  if (windows.length === 0) return;
  try {
    await loadBatchInTransaction(db, lastPerWindow(windows), opts);
  } catch (e) {
    throw batchFailure(e, windows, db.path);
  }
}
