import type { DuckDBConnection } from '@duckdb/node-api';
import { memoryForText } from '../large-values.js';

/**
 * JSON texts up to this size load within the writer's own memory limit (the loaders cut rows
 * into pieces of about 1 MB; a day's page rows never hold one much longer).
 */
const ORDINARY_CHARS = 2 * 2 ** 20;

/**
 * The most a huge value may raise the limit to: enough for the client's 32 MiB response cap
 * (memoryForText gives 320 MB for it), and a bound on what one hostile value can cost.
 */
export const DEFAULT_CEILING_BYTES = 512 * 2 ** 20;

/**
 * Runs `fn` (a transaction: it must have committed or rolled back when it returns) with DuckDB's memory_limit raised for a text of `chars` when the writer's own limit
 * is too small for it, and put back afterwards: the writer keeps its small footprint for every
 * ordinary batch and pays for a huge value only while loading it (any value the client's
 * response-size cap admits).
 */
export async function withMemoryFor<T>(
  conn: DuckDBConnection,
  chars: number,
  fn: () => Promise<T>,
  ceilingBytes = DEFAULT_CEILING_BYTES,
): Promise<T> {
  if (chars <= ORDINARY_CHARS) return fn();
  const read = await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
  const setting = read.getRowObjectsJson()[0]?.['m'];
  const before = typeof setting === 'string' ? setting : '';
  const limit = Math.min(memoryForText(chars), ceilingBytes);
  await conn.run(`SET memory_limit = '${Math.ceil(limit / 2 ** 20)}MB'`);
  try {
    const out = await fn();
    // A checkpoint writes the huge value's blocks out now: one forced later under the writer's
    // own limit (the next small commit's autocheckpoint) failed to pin a 20 MB block.
    await conn.run('CHECKPOINT');
    return out;
  } finally {
    if (before !== '') await conn.run(`SET memory_limit = '${before.replaceAll("'", "''")}'`);
  }
}
