import { sqlDir } from '../../paths.js';
import type { ScriptOptions } from '../sql-script.js';
import { renderedSqlFiles } from '../sql-source.js';
import { DUCKDB_DIALECT } from './dialect.js';
import { tagViewsSql, viewNames, viewsTag } from '../views-tag.js';

/**
 * What the first open of an empty DuckDB file applies (database.ts: migrate, then the views), as
 * one script for the duckdb shell: each migration in a transaction with its schema_migrations row,
 * then every view in one transaction, with this version's tag on each.
 */
export async function duckdbScript(opts: ScriptOptions = {}): Promise<string> {
  const dir = opts.sqlDir ?? sqlDir();
  const out = [
    '-- mintlify-etl: the SQL a first open of an empty DuckDB file applies (mintlify-etl sql --destination duckdb)',
    "SET TimeZone = 'UTC';",
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL);',
  ];
  for (const f of await renderedSqlFiles(dir, 'schema', DUCKDB_DIALECT))
    out.push(
      `\n-- schema/${f.name}`,
      'BEGIN TRANSACTION;',
      f.sql.trimEnd(),
      `INSERT INTO schema_migrations (version, applied_at) VALUES (${f.version}, now());`,
      'COMMIT;',
    );
  out.push('\nBEGIN TRANSACTION;');
  const views = await renderedSqlFiles(dir, 'views', DUCKDB_DIALECT);
  for (const f of views) out.push(`\n-- views/${f.name}`, f.sql.trimEnd());
  // The views' version, as the tool writes it: a sync afterwards finds them current.
  out.push('');
  for (const sql of tagViewsSql(viewNames(views), viewsTag(views))) out.push(`${sql};`);
  out.push('\nCOMMIT;');
  return `${out.join('\n')}\n`;
}
