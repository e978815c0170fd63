import { privateSchemaName } from '../hash-key-schema.js';
import type { FunctionHead, SqlDialect } from '../sql-dialect.js';
import { DEFAULT_PG_SCHEMA } from '../target.js';
import { quoteIdent } from '../quote-ident.js';

/** PostgreSQL's spelling of the fragments the SQL files and the readers name (see ../sql-dialect.ts). */
export const POSTGRES_DIALECT: SqlDialect = {
  destination: 'postgres',
  // lower() follows the collation (a "C" database lowers ASCII only): ICU's root locale lowers
  // every letter, as DuckDB does; the default collation is handed back for compares and joins.
  lowerAll: (expr) => `(lower((${expr}) COLLATE "und-x-icu") COLLATE "default")`,
  // The database's collation may follow a locale (en_US ignores '-' and case).
  codePoint: (expr) => `${expr} COLLATE "C"`,
  intDiv: (a, b) => `(${a}) / (${b})`,
  roundDouble: (x, digits) => `round((${x})::numeric, ${digits})::double precision`,
  // array_length() is NULL for an empty array.
  listLength: (list) => `cardinality(${list})`,
  sourcesColumn: (name) => `${name} jsonb NOT NULL CHECK (jsonb_typeof(${name}) = 'array')`,
  eachSource: (list) => `jsonb_array_elements(${list})`,
  sourceUrl: (element) => `(${element} ->> 'url')`,
  jsonColumn: (name) => `${name} jsonb`,
  uniqueIndex: (name, table, columns) => `CREATE UNIQUE INDEX IF NOT EXISTS ${name} ON ${table} ${columns};`,
  rowIndex: (name, table, columns) => `CREATE INDEX IF NOT EXISTS ${name} ON ${table} ${columns};`,
  renamePrimaryKey: (table, from, to) => `ALTER TABLE ${table} RENAME CONSTRAINT ${from} TO ${to};`,
  createSchema: (name) => `-- schema ${name}: created by migrate.ts when missing (private-schema.ts)`,
  privateSchema: quoteIdent(privateSchemaName(DEFAULT_PG_SCHEMA)),
  scalarFunction: (fn, body) =>
    `CREATE OR REPLACE FUNCTION ${fn.name}(${typed(fn)}) RETURNS ${fn.returns}\nLANGUAGE sql IMMUTABLE\nAS $$\n  SELECT ${body.trim()}\n$$;`,
  // DROP first: CREATE OR REPLACE cannot change the columns a function returns. The body resolves
  // tables in the schema it was created in (a function body, unlike a view, is bound when it runs,
  // and a BI tool's search_path names other schemas).
  tableFunction: (fn, columns, body) =>
    `DROP FUNCTION IF EXISTS ${fn.name}(${fn.params.map((p) => p.type).join(', ')});\n\n` +
    `CREATE FUNCTION ${fn.name}(${typed(fn)})\nRETURNS TABLE (\n  ${columns}\n)\nLANGUAGE sql STABLE\nSET search_path FROM CURRENT\nAS $$\n${body}\n$$;`,
};

/** The dialect for the migrations of one schema: its hash key's schema named after it. */
export function pgDialectFor(schema: string): SqlDialect {
  return { ...POSTGRES_DIALECT, privateSchema: quoteIdent(privateSchemaName(schema)) };
}

function typed(fn: FunctionHead): string {
  return fn.params.map((p) => `${p.name} ${p.type}`).join(', ');
}
