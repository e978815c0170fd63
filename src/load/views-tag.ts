import { createHash } from 'node:crypto';
import { quoteIdent } from './quote-ident.js';

const VIEW_NAME = /CREATE\s+OR\s+REPLACE\s+VIEW\s+([A-Za-z_][A-Za-z0-9_]*)/gi;
const VIEWS_TAG = 'mintlify-etl views sha256:';

/**
 * The comment every view of this version carries on either destination: one hash of every view
 * file's text for that destination. A later open that finds every view with this tag knows they
 * are current and applies nothing: re-creating them would cost a DuckDB file ~70 ms and a bigger
 * checkpoint at every run, and would make PostgreSQL's readers queue behind a DROP VIEW.
 */
export function viewsTag(files: readonly { name: string; sql: string }[]): string {
  const hash = createHash('sha256');
  for (const { name, sql } of files) hash.update(`${name}\n${sql}\n`);
  return `${VIEWS_TAG}${hash.digest('hex')}`;
}

/** The views a file's text creates, in order. */
export function viewNamesIn(sql: string): string[] {
  return [...sql.matchAll(VIEW_NAME)].map((m) => m[1] as string);
}

/** The views the files create, in order. */
export function viewNames(files: readonly { sql: string }[]): string[] {
  return files.flatMap(({ sql }) => viewNamesIn(sql));
}

/** The statements that put the tag on each view (the same on DuckDB and PostgreSQL), without `;`. */
export function tagViewsSql(names: readonly string[], tag: string): string[] {
  return names.map((name) => `COMMENT ON VIEW ${quoteIdent(name)} IS '${tag}'`);
}
