/**
 * Where a destination keeps the key of visitor_key (the HMAC of a visitor's ip and user agent when
 * it has no anon_id): a schema of its own beside the data's, `<schema>_private` (DuckDB's data
 * schema is `main`: `main_private`). Whoever may read the key can turn visitor_key back into an
 * address by trying them all, so no grant that lets a BI login read the data (`GRANT SELECT ON ALL
 * TABLES IN SCHEMA mintlify`, default privileges IN SCHEMA mintlify) may reach it, and `query`
 * refuses to name it (hash-key-guard.ts). docs/events.md, "Where the visitor hash key lives".
 */

/** The suffix that names a destination's key schema. */
export const PRIVATE_SUFFIX = '_private';

/** PostgreSQL's longest identifier (NAMEDATALEN - 1): a longer name is cut short, silently. */
export const MAX_IDENTIFIER = 63;

/** The key schema of a destination whose data is in `schema`. */
export function privateSchemaName(schema: string): string {
  return `${schema}${PRIVATE_SUFFIX}`;
}

/** The table of the key, as every reader of it spells it. */
export const HASH_KEY_TABLE = 'event_hash_key';
