import type { BatchLoadOptions } from '../prepared-window.js';
import { prepareWindow, type WindowLoad } from '../site-page-rows.js';
import type { Database } from './database.js';
import { loadPreparedBatch } from './window-batch.js';

/*
 * Fetched visitors windows straight into a DuckDB file, without the pipeline: what tests and
 * benchmarks load their days with.
 */

/**
 * Loads visitors windows in ONE transaction (see `loadPreparedBatch`): same result as loading
 * each in order, at a fraction of the cost per window; a failure or a crash leaves every day of
 * the batch all-old.
 */
export async function loadWindowBatch(
  db: Database,
  windows: readonly WindowLoad[],
  opts: BatchLoadOptions = {},
): Promise<void> {
  await loadPreparedBatch(
    db,
    windows.map((w) => prepareWindow(w)),
    opts,
  );
}

/**
 * Loads one fetched window in ONE transaction: the site row replaced, the day's page rows
 * replaced as a set, the window marked loaded. A failure (or a crash) at any instant leaves the
 * day all-old. It is the batch loader with a batch of one, so both share one code path.
 */
export async function loadWindow(db: Database, w: WindowLoad, opts: BatchLoadOptions = {}): Promise<void> {
  await loadWindowBatch(db, [w], opts);
}

/** Loads windows one after another, each in its own transaction; stops at the first failure (earlier ones stay loaded). */
export async function loadWindows(
  db: Database,
  ws: readonly WindowLoad[],
  opts: BatchLoadOptions = {},
): Promise<void> {
  for (const w of ws) await loadWindow(db, w, opts);
}
