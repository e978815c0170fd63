/**
 * `export` from a PostgreSQL destination: the same files as from DuckDB, written by the same DuckDB
 * COPY statements (export.ts). Each chunk's rows (a month, or a few small months, as export.ts
 * chunks them) leave PostgreSQL by `COPY ... TO STDOUT (FORMAT csv)` into a file of the staging
 * folder; a small in-memory DuckDB reads that file with the DuckDB contract's column types (so the
 * Parquet schema is the DuckDB export's: BIGINT, DATE, TIMESTAMPTZ, DOUBLE, BOOLEAN, sources as
 * LIST<STRUCT(title, url)>) and writes the partition. Memory holds one chunk at most, in DuckDB.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { READER_MEMORY_LIMIT } from '../duckdb/database.js';
import { exportFrom, runCopy } from '../duckdb/export.js';
import { type ChunkRows, type ExportOptions, type ExportSource, type ExportSummary } from '../export-plan.js';
import { memoryForText } from '../large-values.js';
import { contractTypes, type ContractTypes } from '../duckdb/contract-types.js';
import type { Day } from '../../util/day.js';
import { quoteIdent } from '../quote-ident.js';

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Lists, structs and maps travel as PostgreSQL's JSON text (jsonb) and are cast from it. */
function isNested(type: string): boolean {
  return /[[\]]|^STRUCT|^MAP|^UNION/.test(type);
}

/**
 * read_csv's buffer (and longest row): DuckDB's default of 32 MiB took ~60 MiB more peak RSS over a
 * 3-year, 5,000-path export (269-276 MiB against 207-214 with 4 MiB). A chunk with a longer
 * row (a huge comment) is read again with a bigger one (copyChunk).
 */
const CSV_BUFFER_BYTES = 4 * 2 ** 20;

/** The view a chunk's COPY statement reads as `table`: the CSV file PostgreSQL wrote, typed. */
function chunkView(
  rows: ChunkRows,
  file: string,
  types: ReadonlyMap<string, string>,
  buffer: number,
): string {
  const typeOf = (c: string): string => {
    const type = types.get(c);
    if (type === undefined) throw new Error(`the DuckDB contract has no column ${rows.table}.${c}`);
    return type;
  };
  const read = rows.columns.map(
    (c) => `${sqlString(c)}: ${sqlString(isNested(typeOf(c)) ? 'VARCHAR' : typeOf(c))}`,
  );
  const select = rows.columns.map((c) =>
    isNested(typeOf(c))
      ? `CAST(CAST(${quoteIdent(c)} AS JSON) AS ${typeOf(c)}) AS ${quoteIdent(c)}`
      : quoteIdent(c),
  );
  // PostgreSQL's CSV: NULL is an empty field, an empty string "" (quoted): told apart.
  return `CREATE OR REPLACE VIEW ${quoteIdent(rows.table)} AS SELECT ${select.join(', ')}
    FROM read_csv(${sqlString(file)}, header = false, auto_detect = false, delim = ',', quote = '"',
      escape = '"', allow_quoted_nulls = false, buffer_size = ${buffer}, max_line_size = ${buffer},
      columns = {${read.join(', ')}})`;
}

/** Export's reads of a PostgreSQL schema (the session's search_path), chunks through `duck`. */
export function pgExportSource(
  client: pg.ClientBase,
  duck: DuckDBConnection,
  types: ContractTypes,
): ExportSource {
  let scratchReady: string | undefined;
  return {
    async tableNames() {
      const res = await client.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      return new Set(res.rows.map((r) => r.t));
    },
    async loadedStreams() {
      const res = await client.query<{ s: string }>(
        "SELECT DISTINCT stream AS s FROM sync_windows WHERE status = 'loaded'",
      );
      return new Set(res.rows.map((r) => r.s));
    },
    async hasRows(table) {
      const res = await client.query<{ e: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${quoteIdent(table)}) AS e`,
      );
      return res.rows[0]?.e === true;
    },
    async monthCounts(table, day, where, grain = 'month', versionOf) {
      // to_char of a timestamp (not timestamptz): no session time zone between the day and its month.
      const format = grain === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM-01';
      // A row's text, then a 64-bit hash of it: the sum is the same whatever the rows' order.
      const version =
        versionOf === undefined
          ? 'NULL'
          : `sum(hashtextextended(ROW(${versionOf.map(quoteIdent).join(', ')})::text, 0))::text`;
      const res = await client.query<{ p: string; m: Day; n: number | string; v: string | null }>(
        `SELECT project_id AS p, to_char((${day})::timestamp, '${format}') AS m, count(*) AS n, ${version} AS v
         FROM ${quoteIdent(table)}${where} GROUP BY 1, 2`,
      );
      return res.rows.map((r) => ({
        project: r.p,
        month: r.m,
        rows: Number(r.n),
        ...(r.v === null ? {} : { version: r.v }),
      }));
    },
    async copy(sql, rows) {
      const scratch = join(rows.scratch, '.postgres');
      if (scratchReady !== scratch) {
        await mkdir(join(scratch, 'spill'), { recursive: true });
        // An in-memory DuckDB spills nowhere by default: a sort past its memory_limit would fail.
        await duck.run(`SET temp_directory = ${sqlString(join(scratch, 'spill'))}`);
        scratchReady = scratch;
      }
      const file = join(scratch, 'chunk.csv');
      const select = `SELECT ${rows.columns.map(quoteIdent).join(', ')} FROM ${quoteIdent(rows.table)}${rows.where}`;
      await pipeline(
        client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT csv)`)),
        createWriteStream(file),
      );
      try {
        return await copyChunk(duck, sql, rows, file, types.get(rows.table) ?? new Map());
      } finally {
        await rm(file, { force: true });
      }
    },
  };
}

/**
 * Writes one chunk from its CSV file. A row longer than the buffer fails the read (DuckDB says
 * "unterminated quote" or "maximum line size", depending on where the buffer ends): the chunk is
 * read again with twice the buffer, up to the size of the file, under a memory limit raised to match.
 */
async function copyChunk(
  duck: DuckDBConnection,
  sql: string,
  rows: ChunkRows,
  file: string,
  types: ReadonlyMap<string, string>,
): Promise<number> {
  const size = (await stat(file)).size;
  for (let buffer = CSV_BUFFER_BYTES; ; buffer *= 2) {
    const last = buffer > size;
    if (buffer > CSV_BUFFER_BYTES) await duck.run(`SET memory_limit = '${memoryForText(buffer)}B'`);
    try {
      await duck.run(chunkView(rows, file, types, buffer));
      return await runCopy(duck, sql);
    } catch (e) {
      if (last || !/CSV Error|maximum line size/i.test(e instanceof Error ? e.message : String(e))) throw e;
    } finally {
      if (buffer > CSV_BUFFER_BYTES) await duck.run(`SET memory_limit = '${READER_MEMORY_LIMIT}'`);
    }
  }
}

/**
 * exportTables from the PostgreSQL schema `client` points at (search_path set): every chunk read in
 * one REPEATABLE READ READ ONLY transaction, so the files are one snapshot even while a sync loads.
 * `duckSettings` (a bench seam) override the DuckDB instance's settings.
 */
export async function exportFromPostgres(
  client: pg.ClientBase,
  opts: ExportOptions,
  duckSettings: Readonly<Record<string, string>> = {},
): Promise<ExportSummary> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    memory_limit: READER_MEMORY_LIMIT,
    ...duckSettings,
  });
  const duck = await instance.connect();
  try {
    const types = await contractTypes(duck);
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      return await exportFrom(pgExportSource(client, duck, types), opts);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
    }
  } finally {
    duck.closeSync();
    instance.closeSync();
  }
}
