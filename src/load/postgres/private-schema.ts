import type pg from 'pg';
import { DestinationError, UsageError } from '../../errors.js';
import { HASH_KEY_TABLE, MAX_IDENTIFIER, PRIVATE_SUFFIX, privateSchemaName } from '../hash-key-schema.js';
import { quoteIdent } from '../quote-ident.js';

/*
 * The key schema of a PostgreSQL destination (`<schema>_private`, src/load/hash-key-schema.ts):
 * the writer's alone. Before a writer migrates, the name must be free to be that (not another
 * destination's data, not another role's schema); after, no role but its owner may use it or read
 * the key, whatever grants or default privileges a DBA gave (they are taken back, and said).
 */

/**
 * Refuses (exit 2, nothing created) a destination schema whose key schema cannot be the writer's
 * own: a data schema named like a key schema, a key schema name PostgreSQL would cut short, or a
 * key schema that exists already and is another role's, or holds another destination.
 */
export async function checkPrivateSchema(
  client: pg.ClientBase,
  schema: string,
  label: string,
): Promise<void> {
  const priv = privateSchemaName(schema);
  if (schema.endsWith(PRIVATE_SUFFIX))
    throw new UsageError(
      `--schema ${schema} ends in ${PRIVATE_SUFFIX}, the name of a destination's key schema (the visitor hash key of schema ${schema.slice(0, -PRIVATE_SUFFIX.length)} lives in ${schema}): pick another name`,
      { schema },
    );
  if (priv.length > MAX_IDENTIFIER)
    throw new UsageError(
      `--schema ${schema} is too long: its key schema ${priv} would pass PostgreSQL's ${MAX_IDENTIFIER} characters; pick a name of at most ${MAX_IDENTIFIER - PRIVATE_SUFFIX.length}`,
      { schema },
    );
  const r = await client.query<{ owner: string; trusted: boolean; data: boolean }>(
    `SELECT pg_get_userbyid(n.nspowner) AS owner, pg_has_role(current_user, n.nspowner, 'USAGE') AS trusted,
            EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname <> $2) AS data
     FROM pg_namespace n WHERE n.nspname = $1`,
    [priv, HASH_KEY_TABLE],
  );
  const found = r.rows[0];
  if (found === undefined) return refuseUncreatable(client, schema, label);
  if (!found.trusted)
    throw new DestinationError(
      `schema ${priv} of ${label}, where mintlify-etl keeps the visitor hash key of schema ${schema}, is owned by ${found.owner}, a role whose rights the writer does not have: that role could read the key; drop it or rename it (ALTER SCHEMA ${priv} RENAME TO ${priv}_own), or pick another schema with --schema`,
      { schema, object: priv, owner: found.owner },
    );
  if (found.data)
    throw new DestinationError(
      `schema ${priv} of ${label}, where mintlify-etl keeps the visitor hash key of schema ${schema}, holds other tables (another destination, or yours): rename it (ALTER SCHEMA ${priv} RENAME TO ${priv}_own), or pick another schema with --schema`,
      { schema, object: priv },
    );
}

/** A writer that may not create schemas (it was given one by a DBA) is told how to get the key's. */
async function refuseUncreatable(client: pg.ClientBase, schema: string, label: string): Promise<void> {
  const r = await client.query<{ may: boolean; me: string }>(
    "SELECT has_database_privilege(current_database(), 'CREATE') AS may, quote_ident(current_user) AS me",
  );
  const { may, me } = r.rows[0] ?? { may: false, me: 'the_writer' };
  if (may) return;
  const priv = privateSchemaName(schema);
  throw new DestinationError(
    `the writer ${me} may not create schema ${priv} in ${label}, where mintlify-etl keeps the visitor hash key of schema ${schema}, out of reach of every grant on ${schema} (docs/warehouse.md, rights to grant): as an administrator, run CREATE SCHEMA ${quoteIdent(priv)} AUTHORIZATION ${me}; then sync again (nothing was changed)`,
    { schema, object: priv },
  );
}

/** Creates the key schema of `schema` when missing (checkPrivateSchema has said the writer may). */
export async function createPrivateSchema(client: pg.ClientBase, schema: string): Promise<void> {
  const priv = privateSchemaName(schema);
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [priv]);
  if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdent(priv)}`);
}

interface Grant {
  readonly what: 'SCHEMA' | 'TABLE';
  readonly name: string;
  readonly grantee: string;
}

/** Grants on the key schema and its tables to any role but their owners (PUBLIC included). */
async function grantsOnPrivate(client: pg.ClientBase, priv: string): Promise<Grant[]> {
  const r = await client.query<Grant>(
    `SELECT DISTINCT 'SCHEMA' AS what, quote_ident(n.nspname) AS name,
            CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END AS grantee
     FROM pg_namespace n, aclexplode(n.nspacl) a
     WHERE n.nspname = $1 AND a.grantee <> n.nspowner
     UNION
     SELECT DISTINCT 'TABLE', quote_ident(n.nspname) || '.' || quote_ident(c.relname),
            CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a
     WHERE n.nspname = $1 AND a.grantee <> c.relowner
     ORDER BY 1, 2, 3`,
    [priv],
  );
  return r.rows;
}

/**
 * Takes back every grant on the key schema of `schema` and on its tables from every role but the
 * owner (a default privilege without IN SCHEMA, or a DBA's GRANT, would hand the key to a BI
 * login). Returns notes for the user: what was taken back, and what could not be (a grant by
 * another grantor stays: the note names it).
 */
export async function sealPrivateSchema(client: pg.ClientBase, schema: string): Promise<string[]> {
  const priv = privateSchemaName(schema);
  const before = await grantsOnPrivate(client, priv);
  if (before.length === 0) return [];
  for (const g of before) {
    const on = g.what === 'SCHEMA' ? `SCHEMA ${g.name}` : `TABLE ${g.name}`;
    await client.query(`REVOKE ALL ON ${on} FROM ${g.grantee}`);
  }
  const left = await grantsOnPrivate(client, priv);
  const said = (gs: readonly Grant[]): string =>
    gs.map((g) => `${g.grantee} on ${g.what.toLowerCase()} ${g.name}`).join(', ');
  const taken = before.filter((b) => !left.some((l) => l.name === b.name && l.grantee === b.grantee));
  const notes: string[] = [];
  if (taken.length > 0)
    notes.push(
      `took back grants on ${quoteIdent(priv)}, the schema of the visitor hash key, which no reader may have (with it visitor_key turns back into ip addresses): ${said(taken)}`,
    );
  if (left.length > 0)
    notes.push(
      `grants on ${quoteIdent(priv)}, the schema of the visitor hash key, could not be taken back by the writer (another role granted them): ${said(left)}; a superuser or that role should REVOKE them`,
    );
  return notes;
}
