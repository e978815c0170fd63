import type { DuckDBConnection } from '@duckdb/node-api';

/** The largest JSON text a window hands DuckDB, and what it holds (for the one-line failure). */
export interface LargestValue {
  /** Characters of the JSON text that carries it (its row, or its chunk of rows). */
  readonly chars: number;
  /** e.g. `field comment of row fb_1 (5.0 MB)`. */
  readonly what: string;
}

/**
 * JSON texts up to this size load within the writer's own memory limit (the loaders cut rows
 * into pieces of about 1 MB; a day's page rows never hold one much longer).
 */
const ORDINARY_CHARS = 2 * 2 ** 20;

/**
 * The memory_limit a statement needs to parse one JSON text of `chars` and store what it holds.
 * DuckDB's JSON reader grows its buffer in powers of two and keeps the text, the parsed value
 * and the stored copy at once: measured, a 30 MB comment or a 1M-element sources list failed at
 * 128 MB and loaded at 256 MB; the 64 MB on top is the rest of the batch's working set.
 */
export function memoryForText(chars: number): number {
  let pow = 2 ** 20;
  while (pow < chars) pow *= 2;
  return 8 * pow + 64 * 2 ** 20;
}

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

/** `5.0 MB`: sizes as a person reads them in a failure line. */
export function formatSize(chars: number): string {
  if (chars >= 2 ** 20) return `${(chars / 2 ** 20).toFixed(1)} MB`;
  return `${Math.ceil(chars / 1024)} KB`;
}

/**
 * The field of `row` whose JSON is longest, as a LargestValue of the row's whole text
 * (`rowChars`): computed once per window, for its longest row only.
 */
export function largestField(row: object, rowChars: number, key: string): LargestValue {
  let field = '';
  let longest = -1;
  for (const [name, value] of Object.entries(row)) {
    const n = JSON.stringify(value ?? null).length;
    if (n > longest) {
      longest = n;
      field = name;
    }
  }
  const count = Array.isArray((row as Record<string, unknown>)[field])
    ? `, ${((row as Record<string, unknown>)[field] as unknown[]).length} elements`
    : '';
  const shown = key.length > 80 ? `${key.slice(0, 77)}...` : key;
  return { chars: rowChars, what: `field ${field} of row ${shown} (${formatSize(longest)}${count})` };
}
