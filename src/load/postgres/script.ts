import { sqlDir } from '../../paths.js';
import type { ScriptOptions } from '../sql-script.js';
import { renderedSqlFiles } from '../sql-source.js';
import { DEFAULT_PG_SCHEMA } from '../target.js';
import { pgDialectFor } from './dialect.js';
import { tagViewsSql, viewNames, viewsTag } from '../views-tag.js';
import { quoteIdent } from '../quote-ident.js';
import { contractNames, FUNCTION_MARK, TABLE_MARK } from './ownership.js';

const RENAMED =
  /ALTER\s+TABLE\s+([A-Za-z_][A-Za-z0-9_]*)\s+RENAME\s+TO\s|DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*;/gi;
const RENAMED_TO = /ALTER\s+TABLE\s+[A-Za-z_][A-Za-z0-9_]*\s+RENAME\s+TO\s+([A-Za-z_][A-Za-z0-9_]*)/gi;

/**
 * What the first migration of an empty PostgreSQL schema applies (migrate.ts), as one script for
 * psql: the schema and session settings, each migration in a transaction with its
 * schema_migrations row, then the views in one transaction, and the comments that mark the
 * objects as the tool's (ownership.ts) and the views as this version's. Left out: the advisory
 * lock, the lock timeouts and the ownership checks, which guard a schema others use.
 */
export async function postgresScript(opts: ScriptOptions = {}): Promise<string> {
  const dir = opts.sqlDir ?? sqlDir();
  const dialect = pgDialectFor(opts.schema ?? DEFAULT_PG_SCHEMA);
  const schema = quoteIdent(opts.schema ?? DEFAULT_PG_SCHEMA);
  const names = await contractNames(dir);
  const out = [
    '-- mintlify-etl: the SQL a first sync applies to an empty PostgreSQL schema (mintlify-etl sql --destination postgres)',
    `CREATE SCHEMA IF NOT EXISTS ${schema};`,
    `CREATE SCHEMA IF NOT EXISTS ${dialect.privateSchema};  -- the visitor hash key's, no grant on it`,
    `SET search_path TO ${schema};`,
    "SET TimeZone TO 'UTC';",
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL);',
    `COMMENT ON TABLE schema_migrations IS '${TABLE_MARK}';`,
  ];
  const migrations = await renderedSqlFiles(dir, 'schema', dialect);
  for (const f of migrations)
    out.push(
      `\n-- schema/${f.name}`,
      'BEGIN;',
      f.sql.trimEnd(),
      `INSERT INTO schema_migrations (version, applied_at) VALUES (${f.version}, now());`,
      'COMMIT;',
    );
  const views = await renderedSqlFiles(dir, 'views', dialect);
  out.push('\nBEGIN;');
  for (const f of views) out.push(`\n-- views/${f.name}`, f.sql.trimEnd());
  out.push('\n-- The marks mintlify-etl knows its own objects by, and the version of the views.');
  // A table a migration rebuilt under another name (003: sync_windows_v3) or dropped (013:
  // event_hash_key, moved to the key schema) is gone by then.
  const back = new Set(migrations.flatMap((f) => [...f.sql.matchAll(RENAMED_TO)].map((m) => m[1] as string)));
  const renamed = new Set(
    migrations
      .flatMap((f) => [...f.sql.matchAll(RENAMED)].map((m) => (m[1] ?? m[2]) as string))
      .filter((t) => !back.has(t)),
  );
  for (const t of names.tables.filter((t) => t !== 'schema_migrations' && !renamed.has(t)))
    out.push(`COMMENT ON TABLE ${quoteIdent(t)} IS '${TABLE_MARK}';`);
  for (const fn of names.functions) out.push(`COMMENT ON FUNCTION ${quoteIdent(fn)} IS '${FUNCTION_MARK}';`);
  for (const sql of tagViewsSql(viewNames(views), viewsTag(views))) out.push(`${sql};`);
  out.push('COMMIT;');
  return `${out.join('\n')}\n`;
}
