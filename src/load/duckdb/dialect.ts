import { privateSchemaName } from '../hash-key-schema.js';
import type { FunctionHead, SqlDialect } from '../sql-dialect.js';

/** DuckDB's spelling of the fragments the SQL files and the readers name (see ../sql-dialect.ts). */
export const DUCKDB_DIALECT: SqlDialect = {
  destination: 'duckdb',
  // DuckDB's lower() lowers every Unicode letter.
  lowerAll: (expr) => `lower(${expr})`,
  // Its default collation is binary: code-point order already.
  codePoint: (expr) => expr,
  intDiv: (a, b) => `(${a}) // (${b})`,
  roundDouble: (x, digits) => `round(${x}, ${digits})`,
  listLength: (list) => `len(${list})`,
  sourcesColumn: (name) => `${name} STRUCT(title VARCHAR, url VARCHAR)[] NOT NULL`,
  eachSource: (list) => `unnest(${list})`,
  sourceUrl: (element) => `${element}.url`,
  jsonColumn: (name) => `${name} JSON`,
  uniqueIndex: (name) => `-- ${name}: no index on DuckDB (the loader's anti-join keeps the key unique)`,
  rowIndex: (name) => `-- ${name}: no index on DuckDB (it skips row groups by their min/max)`,
  renamePrimaryKey: () => '-- (DuckDB does not name primary keys)',
  createSchema: (name) => `CREATE SCHEMA IF NOT EXISTS ${name};`,
  privateSchema: `"${privateSchemaName('main')}"`,
  scalarFunction: (fn, body) => `CREATE OR REPLACE MACRO ${fn.name}(${names(fn)}) AS\n${body};`,
  tableFunction: (fn, _columns, body) =>
    `CREATE OR REPLACE MACRO ${fn.name}(${names(fn)}) AS TABLE\n${body};`,
};

/** A macro's parameters are names only: DuckDB binds their types at each call. */
function names(fn: FunctionHead): string {
  return fn.params.map((p) => p.name).join(', ');
}
