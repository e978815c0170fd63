import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The memory_limit steps a read climbs when DuckDB refuses it for memory, after the reader's own
 * limit (READER_MEMORY_LIMIT): '' is DuckDB's default (80% of the machine's memory), what a read
 * would have had without any limit.
 *
 * Why a read needs them: the reader's limit bounds DuckDB's block cache, but some of DuckDB's
 * operators cannot spill to the temp folder (a sort of long strings, an ordered list aggregate,
 * a Parquet row group): on a real site (issue 27, item 2) v_content_gaps and export failed with
 * "Out of Memory Error: failed to pin block (61.0 MiB/61.0 MiB used)" whatever the temp folder,
 * and ran at 96-128 MB. A statement that reads only can run again: it is retried one step up,
 * and the limit goes back to the reader's own for the next statement, so the cache stays small.
 */
export const READ_HEADROOM_STEPS: readonly string[] = ['256MB', '1GB', ''];

/** DuckDB's message for a statement its memory_limit could not hold. */
export function isOutOfMemory(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /^Out of Memory Error\b/.test(message) || /\bOut of Memory Error:/.test(message);
}

/** Sizes as DuckDB shows them ('61.0 MiB', '1.0 GiB') or takes them ('256MB', '1GB'), in bytes. */
export function limitBytes(setting: string): number {
  const m = /^\s*([\d.]+)\s*([KMGT]?)(i?)B\s*$/i.exec(setting);
  if (!m) return Number.NaN;
  const power = ['', 'K', 'M', 'G', 'T'].indexOf((m[2] ?? '').toUpperCase());
  // DuckDB reads MB as 10^6 bytes and MiB as 2^20 ('64MB' shows as '61.0 MiB').
  return Number(m[1]) * (m[3] === '' ? 1000 : 1024) ** power;
}

async function currentLimit(conn: DuckDBConnection): Promise<string> {
  const read = await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
  const m = read.getRowObjectsJson()[0]?.['m'];
  return typeof m === 'string' ? m : '';
}

async function setLimit(conn: DuckDBConnection, limit: string): Promise<void> {
  await conn.run(limit === '' ? 'RESET memory_limit' : `SET memory_limit = '${limit.replaceAll("'", "''")}'`);
}

export interface HeadroomOptions {
  /** Default READ_HEADROOM_STEPS. */
  readonly steps?: readonly string[];
  /** Told once per step taken (the statement's memory need is worth a debug line, never an error). */
  readonly onRaise?: (from: string, to: string) => void;
}

/**
 * Runs `read` (one statement, outside any transaction: DuckDB aborts a transaction at its first
 * error) and, when DuckDB refuses it for memory, runs it again under the next larger limit, then
 * puts the reader's own limit back. `read` must be safe to run again: a SELECT, or a COPY to a
 * file it overwrites.
 */
export async function withReadHeadroom<T>(
  conn: DuckDBConnection,
  read: () => Promise<T>,
  opts: HeadroomOptions = {},
): Promise<T> {
  try {
    return await read();
  } catch (first) {
    if (!isOutOfMemory(first)) throw first;
    const own = await currentLimit(conn);
    const ownBytes = limitBytes(own);
    const steps = (opts.steps ?? READ_HEADROOM_STEPS).filter((s) => s === '' || !(limitBytes(s) <= ownBytes));
    let last: unknown = first;
    try {
      for (const step of steps) {
        await setLimit(conn, step);
        opts.onRaise?.(own, step === '' ? "DuckDB's default" : step);
        try {
          return await read();
        } catch (e) {
          if (!isOutOfMemory(e)) throw e;
          last = e;
        }
      }
      throw last;
    } finally {
      // Lowering the limit evicts cached blocks; should DuckDB refuse (blocks still pinned), the
      // statement's result stands and the next statement simply runs with more room.
      await setLimit(conn, own).catch(() => undefined);
    }
  }
}
