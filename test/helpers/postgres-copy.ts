import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  DuckDBDateValue,
  DuckDBListValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { quoteIdent } from '../../src/load/quote-ident.js';
import { withDuckFile } from './duck-file.js';
import { isoMicros } from './canonical-rows.js';

/** The base tables of a DuckDB file's main schema, by name. */
export async function duckTables(conn: DuckDBConnection): Promise<string[]> {
  const reader = await conn.runAndReadAll(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  return reader.getRows().map((r) => String(r[0]));
}

/** Columns of a PostgreSQL table in the session's search_path, in order, with their udt names (int8, _text, jsonb...). */
async function pgColumns(client: pg.ClientBase, table: string): Promise<{ name: string; udt: string }[]> {
  const res = await client.query<{ name: string; udt: string }>(
    `SELECT column_name AS name, udt_name AS udt FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return res.rows;
}

function plainJson(v: DuckDBValue): unknown {
  if (v instanceof DuckDBListValue) return v.items.map(plainJson);
  if (v instanceof DuckDBStructValue) {
    return Object.fromEntries(Object.entries(v.entries).map(([k, x]) => [k, plainJson(x)]));
  }
  return typeof v === 'bigint' ? Number(v) : v;
}

/** An element of a PostgreSQL array literal: always quoted, backslash and quote escaped. */
function arrayElement(v: DuckDBValue): string {
  return v === null ? 'NULL' : `"${String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** PostgreSQL's input text for one DuckDB value going into a column of type `udt`. */
function pgInput(v: DuckDBValue, udt: string): string | null {
  if (v === null) return null;
  if (udt === 'jsonb') return JSON.stringify(plainJson(v));
  if (v instanceof DuckDBListValue) return `{${v.items.map(arrayElement).join(',')}}`;
  if (v instanceof DuckDBTimestampTZValue) return isoMicros(v.micros);
  if (v instanceof DuckDBDateValue) return v.toString();
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return String(v);
  throw new Error(`cannot copy the DuckDB value ${String(v)} into a ${udt} column`);
}

/** COPY's text format: tab-separated, \N for NULL, backslash escapes for the separators. */
function copyField(text: string | null): string {
  if (text === null) return '\\N';
  return text
    .replaceAll('\\', '\\\\')
    .replaceAll('\t', '\\t')
    .replaceAll('\n', '\\n')
    .replaceAll('\r', '\\r');
}

/** COPY data in chunks of ~1000 rows: one CopyData message (and socket write) per row is slow. */
function* chunks(rows: DuckDBValue[][], line: (r: DuckDBValue[]) => string): Generator<string> {
  for (let i = 0; i < rows.length; i += 1000)
    yield rows
      .slice(i, i + 1000)
      .map(line)
      .join('');
}

/**
 * Copies every row of a DuckDB table into the PostgreSQL table of the same name (in the session's
 * search_path) with COPY FROM STDIN, column by column by name. Returns the rows copied.
 */
export async function copyTable(
  conn: DuckDBConnection,
  client: pg.ClientBase,
  table: string,
): Promise<number> {
  const columns = await pgColumns(client, table);
  if (columns.length === 0) throw new Error(`PostgreSQL has no table ${table} in the current schema`);
  const names = columns.map((c) => c.name);
  const reader = await conn.runAndReadAll(
    `SELECT ${names.map(quoteIdent).join(', ')} FROM ${quoteIdent(table)}`,
  );
  const rows = reader.getRows();
  const line = (r: DuckDBValue[]): string =>
    `${r.map((v, i) => copyField(pgInput(v, columns[i]?.udt ?? ''))).join('\t')}\n`;
  const sink = client.query(
    copyFrom(`COPY ${quoteIdent(table)} (${names.map(quoteIdent).join(', ')}) FROM STDIN`),
  );
  await pipeline(Readable.from(chunks(rows, line)), sink);
  return rows.length;
}

/**
 * A PostgreSQL destination holding what a DuckDB file holds: `schema` migrated at `url`, then
 * each of `tables` copied from the file (opened read-only).
 */
export async function copyDuckFileToPostgres(
  dbFile: string,
  url: string,
  schema: string,
  tables: readonly string[],
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migratePostgres(client, { schema });
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    await withDuckFile(
      dbFile,
      async (db) => {
        for (const table of tables) await copyTable(db.connection, client, table);
      },
      true,
    );
  } finally {
    await client.end();
  }
}
