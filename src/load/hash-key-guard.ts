import { SqlError } from '../errors.js';
import { HASH_KEY_TABLE } from './hash-key-schema.js';
import { tokenize, type Token } from './postgres/sql-lexer.js';

/*
 * `query` never reads the visitor hash key (hash-key-schema.ts), on either destination: with it,
 * visitor_key turns back into ip addresses by trying them. The key's table is named in the SQL, or
 * read through a function that runs SQL or reads a table from a name built at run time (which
 * could spell the name in pieces); both are refused before anything runs. On PostgreSQL the
 * writer's login could still read it with psql: the boundary that holds against a reader is the
 * BI login's grants (none on the key's schema); this keeps `query`, the tool's own way in, and
 * whatever a script or an agent sends through it, away from the key.
 */

/** Functions that run SQL text or read a whole table, schema or database given by name. */
const DYNAMIC_READERS = new Set([
  // DuckDB
  'query',
  'query_table',
  'json_execute_serialized_sql',
  // PostgreSQL
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'table_to_xml',
  'table_to_xmlschema',
  'table_to_xml_and_xmlschema',
  'schema_to_xml',
  'schema_to_xmlschema',
  'schema_to_xml_and_xmlschema',
  'database_to_xml',
  'database_to_xmlschema',
  'database_to_xml_and_xmlschema',
  'ts_stat',
  'ts_rewrite',
]);

export class HashKeyRefused extends SqlError {}

function refusal(what: string): HashKeyRefused {
  return new HashKeyRefused(
    `${what} is refused before anything ran: query never reads the visitor hash key (${HASH_KEY_TABLE}), with which visitor_key turns back into ip addresses, nor runs SQL built at run time that could (query(), query_to_xml(), table_to_xml(), a DO block's EXECUTE); read visitor_key itself, or the views (docs/events.md, where the visitor hash key lives)`,
    { refused: what },
  );
}

function isCall(tokens: readonly Token[], i: number): boolean {
  const next = tokens[i + 1];
  return next?.kind === 'other' && next.value === '(';
}

/** Why `tokens` may reach the key, or undefined. `code`: a DO body, whose EXECUTE builds SQL. */
function reachesKey(tokens: readonly Token[], code: boolean, depth: number): string | undefined {
  for (const [i, t] of tokens.entries()) {
    if (t.kind === 'semicolon' || t.kind === 'other') continue;
    if (t.value.toLowerCase().includes(HASH_KEY_TABLE)) return `SQL naming ${HASH_KEY_TABLE}`;
    const word = t.value.toLowerCase();
    if ((t.kind === 'word' || t.kind === 'name') && DYNAMIC_READERS.has(word) && isCall(tokens, i))
      return `${word}()`;
    if (code && t.kind === 'word' && word === 'execute') return 'a DO block with EXECUTE';
    if (t.kind === 'string' && (code || isDo(tokens)) && depth < 4) {
      const inner = reachesKey(tokenize(t.value), true, depth + 1);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

function isDo(tokens: readonly Token[]): boolean {
  return tokens.some(
    (t, i) => t.kind === 'word' && t.value === 'do' && (i === 0 || tokens[i - 1]?.kind === 'semicolon'),
  );
}

/** Throws HashKeyRefused (exit 2) when the SQL could read the visitor hash key. */
export function refuseHashKey(sql: string): void {
  const why = reachesKey(tokenize(sql), false, 0);
  if (why !== undefined) throw refusal(why);
}
