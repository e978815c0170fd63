import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';

/**
 * What a migrated destination holds, as text lines that compare across versions: every table's and
 * view's columns with their types, nullability and defaults, keys and indexes, and the macros or
 * functions with their signatures (and, on PostgreSQL, the markers the tool comments on its
 * objects). Not the views' text: a view may be written another way as long as its rows are the
 * same (the parity tests check those).
 */
export interface SqlCatalog {
  readonly columns: string[];
  readonly constraints: string[];
  readonly indexes: string[];
  readonly functions: string[];
  readonly comments: string[];
}

async function duckLines(conn: DuckDBConnection, sql: string): Promise<string[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRows().map((r) => r.map((v) => (v === null ? 'NULL' : String(v))).join(' | '));
}

/** The catalog of a DuckDB database's main schema. */
export async function duckCatalog(conn: DuckDBConnection): Promise<SqlCatalog> {
  return {
    columns: await duckLines(
      conn,
      `SELECT t.table_type, c.table_name, c.ordinal_position, c.column_name, c.data_type, c.is_nullable,
              coalesce(c.column_default, '')
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = 'main' ORDER BY c.table_name, c.ordinal_position`,
    ),
    constraints: await duckLines(
      conn,
      `SELECT table_name, constraint_type, list_sort(constraint_column_names)::VARCHAR
       FROM duckdb_constraints() WHERE schema_name = 'main' AND constraint_type <> 'NOT NULL'
       ORDER BY ALL`,
    ),
    indexes: await duckLines(
      conn,
      `SELECT index_name, table_name FROM duckdb_indexes() WHERE schema_name = 'main' ORDER BY ALL`,
    ),
    functions: await duckLines(
      conn,
      `SELECT function_name, function_type, parameters::VARCHAR FROM duckdb_functions()
       WHERE schema_name = 'main' AND NOT internal ORDER BY ALL`,
    ),
    comments: [],
  };
}

async function pgLines(client: pg.ClientBase, sql: string, schema: string): Promise<string[]> {
  const r = await client.query({ text: sql, values: [schema], rowMode: 'array' });
  return (r.rows as unknown[][]).map((row) =>
    row.map((v) => (v === null ? 'NULL' : typeof v === 'string' ? v : JSON.stringify(v))).join(' | '),
  );
}

/** The catalog of a PostgreSQL schema (its name left out, so two schemas compare). */
export async function pgCatalog(client: pg.ClientBase, schema: string): Promise<SqlCatalog> {
  const strip = (lines: string[]): string[] =>
    lines.map((l) =>
      l
        .replaceAll(`"${schema}".`, '')
        .replaceAll(`${schema}.`, '')
        .replaceAll(`search_path=${schema}`, 'search_path=(schema)'),
    );
  return {
    columns: await pgLines(
      client,
      `SELECT t.table_type, c.table_name, c.ordinal_position, c.column_name,
              format_type(a.atttypid, a.atttypmod), c.is_nullable, coalesce(c.column_default, '')
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass
         AND a.attname = c.column_name
       WHERE c.table_schema = $1 ORDER BY c.table_name, c.ordinal_position`,
      schema,
    ),
    constraints: strip(
      await pgLines(
        client,
        `SELECT cl.relname, co.conname, pg_get_constraintdef(co.oid)
         FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
         WHERE n.nspname = $1 ORDER BY 1, 2`,
        schema,
      ),
    ),
    indexes: strip(
      await pgLines(
        client,
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`,
        schema,
      ),
    ),
    functions: strip(
      await pgLines(
        client,
        `SELECT p.proname, pg_get_function_identity_arguments(p.oid), pg_get_function_result(p.oid),
                p.provolatile, coalesce(array_to_string(p.proconfig, ','), ''), l.lanname
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
         WHERE n.nspname = $1 ORDER BY 1, 2`,
        schema,
      ),
    ),
    comments: await pgLines(
      client,
      `SELECT c.relname, c.relkind::text, regexp_replace(obj_description(c.oid, 'pg_class'), 'sha256:[0-9a-f]+', 'sha256:…')
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND obj_description(c.oid, 'pg_class') IS NOT NULL
       UNION ALL
       SELECT p.proname, 'f', obj_description(p.oid, 'pg_proc')
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = $1 AND obj_description(p.oid, 'pg_proc') IS NOT NULL
       ORDER BY 1, 2`,
      schema,
    ),
  };
}
