import type pg from 'pg';
import { DestinationError } from '../../errors.js';
import { renderedSqlFiles } from '../sql-source.js';
import { POSTGRES_DIALECT } from './dialect.js';
import { quoteIdent } from '../quote-ident.js';

/*
 * mintlify-etl owns only what it created. A table, view, index or function of one of its names in
 * the destination's schema is its own when BOTH hold:
 *
 * - its owner is a role whose rights the writer has (pg_has_role(current_user, owner, 'USAGE'):
 *   the writer itself, or a role it inherits). Writing into a table runs its triggers, and calling
 *   a function runs its body, with the writer's rights: an object of another role (anyone with
 *   CREATE on the schema) would run that role's code as the writer. An owner check cannot be
 *   forged; a comment can, by whoever owns the object.
 * - it carries the tool's marker (a COMMENT starting `mintlify-etl`, set when the tool creates the
 *   object), or the schema predates markers (a schema_migrations table of the tool's own shape
 *   with no marker yet: its tables were made by the tool's migrations, and get marked now). The
 *   marker tells the tool's objects from a user's own object of the same name made by the same
 *   role (a view v_site_daily of their own), which the owner alone cannot.
 *
 * Besides, since the tool's SQL names functions unqualified and resolves them in this schema, any
 * function of another role in the schema (whatever its name: an overload of lower() would do) is
 * refused, and so is any trigger or rule on the tool's tables: the tool creates none, and one would
 * run on every row it writes, with its rights, and could change what it stores.
 */

export const TABLE_MARK = 'mintlify-etl table';
export const FUNCTION_MARK = 'mintlify-etl function';
const MARK_PREFIX = 'mintlify-etl';

/** The names the tool's SQL creates: relations by kind, and functions. */
export interface ContractNames {
  readonly tables: readonly string[];
  readonly views: readonly string[];
  readonly indexes: readonly string[];
  readonly functions: readonly string[];
}

// Tables of the destination's schema only: not IF of `IF NOT EXISTS "x_private".t` (the key's
// schema, hash-key-schema.ts), nor a schema-qualified name.
const CREATE_TABLE =
  /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?!IF\s)([A-Za-z_][A-Za-z0-9_]*)(?![.A-Za-z0-9_])/gi;
const CREATE_VIEW = /CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+([A-Za-z_][A-Za-z0-9_]*)/gi;
const CREATE_INDEX = /CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)/gi;
const CREATE_FUNCTION = /CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([A-Za-z_][A-Za-z0-9_]*)/gi;

function namesIn(texts: readonly { sql: string }[], pattern: RegExp): string[] {
  return [...new Set(texts.flatMap(({ sql }) => [...sql.matchAll(pattern)].map((m) => m[1] as string)))];
}

/** Every name the migrations and views of `dir` create, read from their PostgreSQL text. */
export async function contractNames(dir: string): Promise<ContractNames> {
  const schema = await renderedSqlFiles(dir, 'schema', POSTGRES_DIALECT);
  const views = await renderedSqlFiles(dir, 'views', POSTGRES_DIALECT);
  return {
    tables: ['schema_migrations', ...namesIn(schema, CREATE_TABLE)],
    views: namesIn(views, CREATE_VIEW),
    indexes: namesIn(schema, CREATE_INDEX),
    functions: namesIn(views, CREATE_FUNCTION),
  };
}

interface Found {
  name: string;
  kind: string;
  owner: string;
  trusted: boolean;
  comment: string | null;
}

const KIND_WORD: Record<string, string> = {
  r: 'table',
  p: 'partitioned table',
  v: 'view',
  m: 'materialized view',
  i: 'index',
  S: 'sequence',
  f: 'foreign table',
  c: 'type',
  I: 'index',
  f_: 'function',
};

/** The relations of the schema holding one of the names, with owner and comment. */
async function relationsNamed(
  client: pg.ClientBase,
  schema: string,
  names: readonly string[],
): Promise<Found[]> {
  const r = await client.query<Found>(
    `SELECT c.relname AS name, c.relkind::text AS kind, pg_get_userbyid(c.relowner) AS owner,
            pg_has_role(current_user, c.relowner, 'USAGE') AS trusted,
            obj_description(c.oid, 'pg_class') AS comment
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[])
     ORDER BY c.relname`,
    [schema, names],
  );
  return r.rows;
}

/** Every function of the schema: those of other roles are refused whatever their names. */
async function functionsOf(
  client: pg.ClientBase,
  schema: string,
): Promise<(Found & { signature: string })[]> {
  const r = await client.query<Found & { signature: string }>(
    `SELECT p.proname AS name, 'f_' AS kind, pg_get_userbyid(p.proowner) AS owner,
            pg_has_role(current_user, p.proowner, 'USAGE') AS trusted,
            obj_description(p.oid, 'pg_proc') AS comment,
            p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 ORDER BY 1, 6`,
    [schema],
  );
  return r.rows;
}

/** Operators of other roles resolve in the schema as functions do. */
async function foreignOperators(client: pg.ClientBase, schema: string): Promise<Found[]> {
  const r = await client.query<Found>(
    `SELECT o.oprname AS name, 'o' AS kind, pg_get_userbyid(o.oprowner) AS owner, false AS trusted, NULL AS comment
     FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
     WHERE n.nspname = $1 AND NOT pg_has_role(current_user, o.oprowner, 'USAGE') ORDER BY 1`,
    [schema],
  );
  return r.rows;
}

/**
 * Whether the schema predates markers and is the tool's: schema_migrations of the tool's shape
 * (version integer, applied_at timestamptz), owned by a trusted role, not marked yet. Another
 * migration tool's schema_migrations (golang-migrate's has version bigint and dirty) is not.
 */
async function legacySchema(
  client: pg.ClientBase,
  schema: string,
  found: readonly Found[],
): Promise<boolean> {
  const table = found.find((f) => f.name === 'schema_migrations');
  if (table === undefined || table.kind !== 'r' || !table.trusted || table.comment !== null) return false;
  const cols = await client.query<{ shape: string }>(
    `SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum) AS shape
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = 'schema_migrations' AND a.attnum > 0 AND NOT a.attisdropped`,
    [schema],
  );
  return cols.rows[0]?.shape === 'version integer, applied_at timestamp with time zone';
}

function foreign(
  schema: string,
  label: string,
  what: string,
  why: string,
  fix: string,
  ctx: object,
): DestinationError {
  return new DestinationError(
    `schema ${schema} of ${label} holds ${what} that mintlify-etl did not create (${why}); it never writes through, alters or drops another's object: ${fix}, or pick another schema with --schema`,
    { schema, ...ctx },
  );
}

function kindWord(kind: string): string {
  return KIND_WORD[kind] ?? 'object';
}

/** The first relation of a contract name that is not the tool's own, as an error; else undefined. */
function foreignRelation(
  schema: string,
  label: string,
  names: ContractNames,
  found: readonly Found[],
  legacy: boolean,
): DestinationError | undefined {
  const expected = (name: string): string[] =>
    names.tables.includes(name) ? ['r', 'p'] : names.views.includes(name) ? ['v'] : ['i'];
  for (const f of found) {
    const word = kindWord(f.kind);
    const ctx = { object: f.name, kind: word, owner: f.owner };
    const rename = `ALTER ${f.kind === 'v' ? 'VIEW' : f.kind === 'i' ? 'INDEX' : 'TABLE'} ${schema}.${f.name} RENAME TO ${f.name}_own`;
    if (!expected(f.name).includes(f.kind))
      return foreign(
        schema,
        label,
        `a ${word} ${f.name}`,
        `mintlify-etl's ${f.name} is a ${kindWord(expected(f.name)[0] ?? 'i')}`,
        `rename it (${rename.replace(/ALTER \w+/, `ALTER ${word.toUpperCase()}`)}) or drop it`,
        ctx,
      );
    if (!f.trusted)
      return foreign(
        schema,
        label,
        `a ${word} ${f.name}`,
        `it is owned by ${f.owner}, a role whose rights the writer does not have`,
        `if it is mintlify-etl's from a run under that role, ALTER ${word.toUpperCase()} ${schema}.${f.name} OWNER TO the writer; otherwise rename it (${rename}) or drop it`,
        ctx,
      );
    if (f.kind !== 'i' && !legacy && !(f.comment ?? '').startsWith(MARK_PREFIX))
      return foreign(
        schema,
        label,
        `a ${word} ${f.name}`,
        `it has no mintlify-etl comment`,
        `rename yours (${rename}) or drop it; mintlify-etl then creates its own`,
        ctx,
      );
  }
  return undefined;
}

/** A function of another role anywhere in the schema, or one of the tool's names that is not its own. */
function foreignFunction(
  schema: string,
  label: string,
  names: ContractNames,
  fns: readonly (Found & { signature: string })[],
  legacy: boolean,
): DestinationError | undefined {
  for (const f of fns) {
    const ctx = { object: f.signature, kind: 'function', owner: f.owner };
    if (!f.trusted)
      return foreign(
        schema,
        label,
        `a function ${f.signature}`,
        `it is owned by ${f.owner}; the tool's SQL resolves function names in this schema and would run it with the writer's rights`,
        `drop it (DROP FUNCTION ${schema}.${f.signature}) or move it to another schema (ALTER FUNCTION ... SET SCHEMA)`,
        ctx,
      );
    if (names.functions.includes(f.name) && !legacy && !(f.comment ?? '').startsWith(MARK_PREFIX))
      return foreign(
        schema,
        label,
        `a function ${f.signature}`,
        'it has no mintlify-etl comment',
        `rename yours (ALTER FUNCTION ${schema}.${f.signature} RENAME TO ${f.name}_own) or drop it`,
        ctx,
      );
  }
  return undefined;
}

/** A trigger or rule on one of the tool's tables: the tool creates none. */
async function addedBehaviour(
  client: pg.ClientBase,
  schema: string,
  label: string,
  tables: readonly string[],
): Promise<DestinationError | undefined> {
  const r = await client.query<{ table: string; name: string; what: string }>(
    `SELECT c.relname AS table, t.tgname AS name, 'trigger' AS what
     FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND NOT t.tgisinternal
     UNION ALL
     SELECT c.relname, w.rulename, 'rule'
     FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'p') AND w.rulename <> '_RETURN'
     ORDER BY 1, 2`,
    [schema, tables],
  );
  const hit = r.rows[0];
  if (hit === undefined) return undefined;
  return new DestinationError(
    `table ${schema}.${hit.table} of ${label} has a ${hit.what} ${hit.name} that mintlify-etl did not create: it would run on every row the sync writes, with the writer's rights, and could change what is stored; drop it (DROP ${hit.what.toUpperCase()} ${hit.name} ON ${schema}.${hit.table}) and act on new rows by reading the tables or views instead, or pick another schema with --schema`,
    { schema, object: hit.name, kind: hit.what, table: hit.table },
  );
}

/**
 * Refuses (DestinationError, exit 2, naming the object and what to do) a schema holding an object
 * of one of the tool's names that the tool did not create, a function or operator of a role whose
 * rights the writer lacks, or a trigger or rule on the tool's tables. Reads only: run it before
 * anything is created. Returns whether the schema predates markers (its objects get marked).
 */
export async function checkOwnership(
  client: pg.ClientBase,
  schema: string,
  label: string,
  names: ContractNames,
): Promise<{ legacy: boolean }> {
  const all = [...names.tables, ...names.views, ...names.indexes];
  const found = await relationsNamed(client, schema, all);
  const legacy = await legacySchema(client, schema, found);
  const problem =
    foreignRelation(schema, label, names, found, legacy) ??
    foreignFunction(schema, label, names, await functionsOf(client, schema), legacy) ??
    (await foreignOperators(client, schema)).map((o) =>
      foreign(
        schema,
        label,
        `an operator ${o.name}`,
        `it is owned by ${o.owner}; the tool's SQL would resolve it`,
        `drop it or move it to another schema`,
        { object: o.name, kind: 'operator', owner: o.owner },
      ),
    )[0] ??
    (await addedBehaviour(client, schema, label, names.tables));
  if (problem) throw problem;
  return { legacy };
}

/**
 * Sets the marker on every table and function of the tool's names in the schema that the writer
 * may comment on and that has none yet: called in the transaction that created them (or, for a
 * schema that predates markers, that adopts them after the check).
 */
export async function markOwnObjects(
  client: pg.ClientBase,
  schema: string,
  names: ContractNames,
): Promise<void> {
  const tables = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'p')
       AND pg_has_role(current_user, c.relowner, 'USAGE') AND obj_description(c.oid, 'pg_class') IS NULL`,
    [schema, names.tables],
  );
  for (const t of tables.rows)
    await client.query(`COMMENT ON TABLE ${quoteIdent(schema)}.${quoteIdent(t.name)} IS '${TABLE_MARK}'`);
  const fns = await client.query<{ ref: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS ref
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 AND p.proname = ANY($2::text[])
       AND pg_has_role(current_user, p.proowner, 'USAGE') AND obj_description(p.oid, 'pg_proc') IS NULL`,
    [schema, names.functions],
  );
  for (const f of fns.rows) await client.query(`COMMENT ON FUNCTION ${f.ref} IS '${FUNCTION_MARK}'`);
}
