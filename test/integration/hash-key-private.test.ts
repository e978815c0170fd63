import { createHmac } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Place } from '../../src/load/destination.js';
import { eventHashKey } from '../../src/load/event-objects.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { sqlDir } from '../../src/paths.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * The visitor hash key lives in a schema of its own (<schema>_private; DuckDB: main_private): a
 * destination of schema version 10 holding a key keeps that very key after the upgrade (a new one
 * would split every visitor in two), and `query` refuses to read it on both destinations.
 */

/** The package's sql/ as schema version 10 knew it: migrations 001-010 (and their partials), no views. */
function v10SqlDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-v10-'));
  mkdirSync(join(dir, 'schema'));
  mkdirSync(join(dir, 'views'));
  cpSync(join(sqlDir(), 'partials'), join(dir, 'partials'), { recursive: true });
  for (const name of readdirSync(join(sqlDir(), 'schema')))
    if (Number(/^(\d+)_/.exec(name)?.[1]) <= 10)
      cpSync(join(sqlDir(), 'schema', name), join(dir, 'schema', name));
  return dir;
}

const OLD_KEY = '5e'.repeat(32);
const visitor = (key: Buffer): string =>
  createHmac('sha256', key).update('i\u0000203.0.113.7\u0000Mozilla/5.0').digest('hex');

interface Where {
  readonly name: string;
  readonly db: () => Promise<string>;
  readonly schema?: string;
  readonly privateSchema: string;
}

const runPg = hasPostgres();
let server: PostgresServer | undefined;
const wheres: Where[] = [
  { name: 'DuckDB', db: () => Promise.resolve(tempDbPath()), privateSchema: 'main_private' },
];
if (runPg)
  wheres.push({
    name: 'PostgreSQL',
    db: async () => (server ??= await startPostgres()).url,
    schema: 'acme',
    privateSchema: 'acme_private',
  });
const dirs: string[] = [];
afterAll(async () => {
  await server?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(wheres)('the visitor hash key on $name', (w) => {
  let place: Place;

  it('keeps the key of a schema-10 destination through the upgrade: the same visitor_key for the same visitor', async () => {
    const old = v10SqlDir();
    dirs.push(old);
    const db = await w.db();
    const target = parseDbTarget(db, w.schema);
    const v10 = await placeOf(target, { duckdb: { open: { sqlDir: old } }, postgres: { sqlDir: old } }).open(
      'write',
    );
    await v10.session.run(
      `INSERT INTO event_hash_key VALUES (1, '${OLD_KEY}', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
    );
    await v10.close();
    place = placeOf(target);
    const now = await place.open('write');
    try {
      const key = await eventHashKey(now.session);
      expect(key.toString('hex')).toBe(OLD_KEY);
      expect(visitor(key)).toBe(visitor(Buffer.from(OLD_KEY, 'hex')));
      const where = await now.session.rows(
        `SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'event_hash_key' ORDER BY 1`,
      );
      expect(where).toEqual([{ s: w.privateSchema }]);
    } finally {
      await now.close();
    }
  });

  it('refuses the key in query, and still answers SQL that does not reach it', async () => {
    const refused = [
      `SELECT hash_key FROM ${w.privateSchema}.event_hash_key`,
      `SELECT * FROM "${w.privateSchema}"."EVENT_HASH_KEY"`,
      `SELECT * FROM query('SELECT hash_key FROM ${w.privateSchema}.event_' || 'hash_key')`,
      `SELECT 1; SELECT * FROM query_table('${w.privateSchema}.event_' || 'hash_key')`,
    ];
    for (const sql of refused)
      await expect(
        place.runUserQuery(sql, {}, () => Promise.resolve(0)),
        sql,
      ).rejects.toThrow(/never reads the visitor hash key/);
    const n = await place.runUserQuery(
      'SELECT count(visitor_key) AS query FROM analytics_events',
      {},
      async (s) => {
        let rows = 0;
        for await (const b of s.batches) rows += b.length;
        return rows;
      },
    );
    expect(n).toBe(1);
  });
});
