import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../quote-ident.js';

/*
 * DuckDB's writer memory for the event stream follows the work. The writer runs at a small
 * memory_limit (DEFAULT_WRITER_MEMORY_LIMIT): DuckDB caches written blocks up to it. An object's
 * long strings (over 8 KiB) stay pinned in the transaction until it commits, so the limit grows
 * with their sum as the object's rows are staged. One value of many MB needs a block of its own size in the stage, in the table and at every checkpoint that
 * rewrites the table's open row group (the last one, still filling): a 16 MiB value loaded at 32 MB
 * and then failed the next commit's checkpoint ("FATAL Error: Failed to create checkpoint ...
 * could not allocate block of size 16.0 MiB"), which ends the database instance. So the limit is
 * raised for a value that needs it, and stays raised while the open row group holds such a value
 * (read from the table's storage statistics, run after run), and only then.
 */

const MIB = 2 ** 20;

/** Values up to this many bytes load, commit and checkpoint within the writer's 32 MB (8 MiB did, measured). */
const ORDINARY_BYTES = 4 * MIB;

/**
 * The memory_limit a value of `bytes` needs: measured on DuckDB 1.5, a 16 MiB value loaded and
 * checkpointed at 64 MB, 32 MiB at 96 MB, 64 MiB at 160 MB (not at 128 MB): twice the value's
 * block (a power of two) plus the writer's own 32 MB.
 */
export function memoryForValue(bytes: number): number {
  if (bytes <= ORDINARY_BYTES) return 0;
  let pow = MIB;
  while (pow < bytes) pow *= 2;
  return 2 * pow + 32 * MIB;
}

/**
 * Strings longer than this many bytes stay pinned in a transaction's local storage until it
 * commits (DuckDB 1.5: 5,000 strings of 8 KiB committed at 32 MB, 2,500 of 16 KiB did not).
 */
const PINNED_BYTES = 8 * 1024;

/**
 * What an object's values cost the writer: the largest one's bytes (UTF-8), and the bytes of all
 * those over PINNED_BYTES. A string's exact byte count is taken only when it may matter (a UTF-16
 * unit is at most 3 bytes of UTF-8).
 */
export class ValueBytes {
  largest = 0;
  pinned = 0;
  add(values: Iterable<unknown>): void {
    for (const v of values) {
      if (typeof v !== 'string' || v.length * 3 <= PINNED_BYTES) continue;
      const bytes = Buffer.byteLength(v);
      if (bytes > this.largest) this.largest = bytes;
      if (bytes > PINNED_BYTES) this.pinned += bytes;
    }
  }
  /**
   * The memory_limit they need (0: the writer's own): the largest value's (memoryForValue), or the
   * pinned strings' (measured: 25 MB of 64 KiB strings failed at 32 MB and loaded at 64 MB, 80 MB
   * of 16 KiB strings loaded at 96 MB), whichever is more.
   */
  need(): number {
    const pinned = this.pinned > 8 * MIB ? 32 * MIB + 1.25 * this.pinned : 0;
    return Math.max(memoryForValue(this.largest), pinned);
  }
}

/** The largest string (bytes) of the table's open row group, from DuckDB's segment statistics. */
async function openRowGroupLargest(conn: DuckDBConnection, table: string): Promise<number> {
  const read = await conn.runAndReadAll(
    `WITH s AS (SELECT row_group_id, stats FROM pragma_storage_info('${table}'))
SELECT coalesce(max(TRY_CAST(regexp_extract(stats, 'Max String Length: (\\d+)', 1) AS BIGINT)), 0)::DOUBLE AS m
FROM s WHERE row_group_id = (SELECT max(row_group_id) FROM s)`,
  );
  return Number(read.getRows()[0]?.[0] ?? 0);
}

interface Raised {
  /** The writer's own setting, put back once nothing needs more. */
  readonly before: string;
  bytes: number;
}

/** The writers whose limit is raised now (at most one per connection). */
const raisedOn = new WeakMap<DuckDBConnection, Raised>();
/** Connections whose table was looked at since they opened. */
const checked = new WeakSet<DuckDBConnection>();

async function raiseTo(conn: DuckDBConnection, bytes: number): Promise<void> {
  let raised = raisedOn.get(conn);
  if (raised !== undefined && bytes <= raised.bytes) return;
  if (raised === undefined) {
    const read = await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
    const setting = read.getRowObjectsJson()[0]?.['m'];
    raised = { before: typeof setting === 'string' ? setting : '', bytes: 0 };
    raisedOn.set(conn, raised);
  }
  raised.bytes = bytes;
  await conn.run(`SET memory_limit = '${Math.ceil(bytes / MIB)}MB'`);
}

const STRING_TYPES = new Set(['VARCHAR', 'JSON']);

/** Longest value of a column by its statistics; undefined when they do not say. */
const maxLength = (stats: unknown): number | undefined => {
  const m = /Max String Length: (\d+)/.exec(String(stats));
  return m === null ? undefined : Number(m[1]);
};

/**
 * Whether any value the table ever held may be longer than ORDINARY_BYTES, from its columns'
 * statistics (an upper bound DuckDB keeps per column: deletes never lower it), where the storage
 * info lists every segment of every row group (0.7-1.2 s a run at 20 million events). `stats()`
 * needs a row, and a row read from the table could be the huge value itself (at the writer's 32 MB,
 * reading a 16 MiB value fails): the column comes through an outer join of no rows, which keeps
 * its statistics and reads none. A NOT NULL column witnesses that they are the table's (an empty
 * table, or statistics the optimizer dropped, show no value in it): without that, or without a
 * length, the answer is "may".
 */
async function mayHoldHugeValue(conn: DuckDBConnection, table: string): Promise<boolean> {
  // DESCRIBE reads the table's entry alone (duckdb_columns() lists the whole catalog's: 60-90 ms).
  const cols = (await conn.runAndReadAll(`DESCRIBE ${table}`)).getRows();
  const strings = cols.filter(([, type]) => STRING_TYPES.has(String(type))).map(([name]) => String(name));
  const witness = cols.find(([, type, nullable]) => STRING_TYPES.has(String(type)) && nullable === 'NO');
  if (witness === undefined) return true;
  const names = [String(witness[0]), ...strings].map(quoteIdent);
  const read = await conn.runAndReadAll(
    `SELECT ${names.map((n) => `stats(t.${n})`).join(', ')}
FROM (SELECT 1) AS one LEFT JOIN (SELECT ${names.join(', ')} FROM ${table} WHERE rowid < 0) AS t ON true`,
  );
  const [first, ...rest] = read.getRows()[0] ?? [];
  if (!/Has No Null: true/.test(String(first)) || !((maxLength(first) ?? 0) > 0)) return true;
  return rest.some((s) => (maxLength(s) ?? Infinity) > ORDINARY_BYTES);
}

/**
 * Before an object's first row: at a writer's first object, the limit the table's open row group
 * needs (a huge value loaded by an earlier run). Its storage info is read only when the table's
 * statistics say such a value may be there.
 */
export async function memoryBeforeObject(conn: DuckDBConnection, table: string): Promise<void> {
  if (checked.has(conn)) return;
  checked.add(conn);
  if (!(await mayHoldHugeValue(conn, table))) return;
  const need = memoryForValue(await openRowGroupLargest(conn, table));
  if (need > 0) await raiseTo(conn, need);
}

/** Before rows are staged: raised for what the object's values need so far, when it is more. */
export async function memoryForRows(conn: DuckDBConnection, values: ValueBytes): Promise<void> {
  const need = values.need();
  if (need > 0) await raiseTo(conn, need);
}

/**
 * After the object's transaction ended (committed or rolled back): when the limit was raised, a
 * checkpoint under it writes the huge value out now, and the limit goes back to what the open
 * row group still needs (the writer's own once a huge value's row group is full).
 */
export async function memoryAfterObject(conn: DuckDBConnection, table: string): Promise<void> {
  const raised = raisedOn.get(conn);
  if (raised === undefined) return;
  await conn.run('CHECKPOINT');
  const need = memoryForValue(await openRowGroupLargest(conn, table));
  if (need > 0) {
    raised.bytes = need;
    await conn.run(`SET memory_limit = '${Math.ceil(need / MIB)}MB'`);
    return;
  }
  raisedOn.delete(conn);
  if (raised.before !== '') await conn.run(`SET memory_limit = '${raised.before.replaceAll("'", "''")}'`);
}
