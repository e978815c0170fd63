/**
 * What differs between the SQL of two destinations, and nothing else. Every table, view and macro
 * under sql/ is written once, in the SQL both destinations run; where they cannot say a thing the
 * same way, the file names a fragment (`{{ lower_all(query) }}`, `{{ int_div(a, 7) }}`, a
 * `{{# scalar_function ... }}` block) and each destination's folder says it in its own dialect
 * (src/load/duckdb/dialect.ts, src/load/postgres/dialect.ts). The TypeScript readers (report,
 * status, insights) take the same fragments from their session (`session.sql`), so no module
 * outside src/load asks which destination it has. A new destination is one more implementation.
 *
 * Written portably, not fragments: `COLLATE "C"` (DuckDB's binary order under another name),
 * `x::double precision`, `text`, `ARRAY[...]`, `CAST(ARRAY[] AS date[])`, `(array_agg(x ORDER BY y))[1:3]`, `generate_series`
 * in a lateral join, `timezone('UTC', ...)`, regular expressions that spell out their classes.
 */
export interface SqlDialect {
  /** The destination it is, for messages and the `sql` command's header. */
  readonly destination: 'duckdb' | 'postgres';
  /** `expr` with every letter in lower case, Unicode ones too (PostgreSQL's lower() follows the collation). */
  lowerAll(expr: string): string;
  /** `expr` ordered and compared by code point, as DuckDB's default (binary) collation does. */
  codePoint(expr: string): string;
  /** Integer division truncating toward zero: DuckDB's `/` of two integers gives a DOUBLE. */
  intDiv(a: string, b: string): string;
  /** `x` (a double) rounded to `digits` decimals, as a double: PostgreSQL rounds only numeric. */
  roundDouble(x: string, digits: string): string;
  /** How many elements a list has; 0 for an empty one (PostgreSQL's array_length gives NULL). */
  listLength(list: string): string;
  /** The column of assistant_turns.sources: a LIST of STRUCT(title, url), or a jsonb array. */
  sourcesColumn(name: string): string;
  /** A FROM item with one row per element of a `sources` value, to alias `AS u(s)`. */
  eachSource(list: string): string;
  /** The url of one element of `sources` as text. */
  sourceUrl(element: string): string;
  /**
   * An index the row-at-a-time destination needs for its window deletes and ledger updates;
   * DuckDB skips row groups by their min/max and gets none. `columns` is the parenthesized list.
   */
  rowIndex(name: string, table: string, columns: string): string;
  /** A column of JSON values: DuckDB's JSON (text checked as JSON), PostgreSQL's jsonb. */
  jsonColumn(name: string): string;
  /**
   * The unique index a keyed insert (`ON CONFLICT DO NOTHING`) needs on PostgreSQL. DuckDB gets none:
   * its index of 2 million event keys outgrew the writer's memory limit, and the loader keeps the key
   * unique by an anti-join instead (the tests check it).
   */
  uniqueIndex(name: string, table: string, columns: string): string;
  /** A primary key a table rebuild must rename (PostgreSQL names constraints; DuckDB does not). */
  renamePrimaryKey(table: string, from: string, to: string): string;
  /** A scalar SQL function: a DuckDB macro, a PostgreSQL IMMUTABLE SQL function. */
  scalarFunction(fn: FunctionHead, body: string): string;
  /** A function returning rows: a DuckDB table macro, a PostgreSQL STABLE set-returning function. */
  tableFunction(fn: FunctionHead, columns: string, body: string): string;
  /**
   * The schema of the visitor hash key (`{{ private_schema }}`, quoted): `<schema>_private` beside
   * the destination's schema (src/load/hash-key.ts), where no grant on the data's schema reaches.
   * A PostgreSQL schema other than the default renders with pgDialectFor(schema).
   */
  readonly privateSchema: string;
  /**
   * Creates a schema when missing. PostgreSQL's CREATE SCHEMA IF NOT EXISTS asks for CREATE on the
   * database even when the schema exists (a writer given its schemas by a DBA has no such right):
   * there, migrate.ts creates them before the migrations, and this says so.
   */
  createSchema(name: string): string;
}

/** `name(arg type, ...) RETURNS type`, as a block's head says it. */
export interface FunctionHead {
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly type: string }[];
  /** The return type of a scalar function; empty for a table function. */
  readonly returns: string;
}

/*
 * Fragments both destinations spell the same, for the TypeScript readers. Days are UTC days on
 * both, whatever the session's TimeZone (a BI tool's, a PostgreSQL role's default): a cast between
 * DATE and TIMESTAMPTZ would use that zone; timezone() is spelled the same on both (DuckDB: ICU).
 */

/** The UTC day of a TIMESTAMPTZ expression, as a DATE. */
export function utcDay(expr: string): string {
  return `CAST(timezone('UTC', ${expr}) AS DATE)`;
}

/** The instant a DATE expression's UTC day starts, as a TIMESTAMPTZ. */
export function utcStart(dayExpr: string): string {
  return `timezone('UTC', CAST(${dayExpr} AS TIMESTAMP))`;
}
