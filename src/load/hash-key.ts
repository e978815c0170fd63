import { randomBytes } from 'node:crypto';
import { HASH_KEY_TABLE, privateSchemaName } from './hash-key-schema.js';
import { isoTime, type SqlSession } from './session.js';
import { quoteIdent } from './quote-ident.js';

/**
 * The destination's key for visitor_key: made once, at the first event load, and kept for good: a
 * new key would give every visitor a second visitor_key (each counted twice across the change). It
 * lives in the destination's key schema (hash-key-schema.ts), which migration 013 made and moved
 * an older destination's key into.
 */
export async function eventHashKey(session: SqlSession): Promise<Buffer> {
  const table = await hashKeyTable(session);
  const read = async (): Promise<Buffer | undefined> => {
    const rows = await session.rows(`SELECT hash_key FROM ${table} WHERE id = 1`);
    const hex = rows[0]?.['hash_key'];
    return typeof hex === 'string' ? Buffer.from(hex, 'hex') : undefined;
  };
  const known = await read();
  if (known !== undefined) return known;
  try {
    await session.run(
      `INSERT INTO ${table} (id, hash_key, created_at)
SELECT 1, $1, $2::TIMESTAMPTZ WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE id = 1)`,
      [randomBytes(32).toString('hex'), isoTime(Date.now())],
    );
  } catch (e) {
    // Another run of another project made it at the same instant (the primary key on id).
    const theirs = await read();
    if (theirs !== undefined) return theirs;
    throw e;
  }
  const made = await read();
  if (made === undefined) throw new Error('event_hash_key: the key just written cannot be read back');
  return made;
}

/** `"<schema>_private".event_hash_key` of the session's destination (its current schema). */
async function hashKeyTable(session: SqlSession): Promise<string> {
  const rows = await session.rows('SELECT current_schema() AS s');
  const schema = rows[0]?.['s'];
  if (typeof schema !== 'string') throw new Error('event_hash_key: the session has no current schema');
  return `${quoteIdent(privateSchemaName(schema))}.${HASH_KEY_TABLE}`;
}
