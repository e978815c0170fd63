import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Destination, Place } from '../../src/load/destination.js';
import { eventHashKey } from '../../src/load/event-objects.js';
import { placeOf } from '../../src/load/places.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { parseDbTarget } from '../../src/load/target.js';
import { insertEventsSql } from '../helpers/analytics-events-rows.js';
import {
  hasPostgres,
  startPrivatePostgres,
  TEST_DATABASE,
  type PostgresServer,
} from '../helpers/postgres.js';

/*
 * The read-only BI login exactly as docs/warehouse.md sets it up (its SQL read from the page), with
 * PostgreSQL's default search_path: it reads every view and table of the schema and calls every
 * function there (enumerated from the catalog), and never reads the visitor hash key, whatever
 * grants a DBA adds that a sync can take back.
 */

/** The SQL blocks of docs/warehouse.md's "Rights to grant", as statements, for the test's database. */
function docStatements(): { writer: string[]; readers: string[]; grants: string[] } {
  const page = readFileSync('docs/warehouse.md', 'utf8');
  const section = page.slice(page.indexOf('## Rights to grant'), page.indexOf('## Several organizations'));
  const blocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) =>
    (m[1] as string)
      .replace(/--[^\n]*/g, '')
      .replaceAll('…', 'pw')
      .replaceAll('analytics', TEST_DATABASE)
      .split(/;\s*\n/)
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  const pick = (word: string, not?: string): string[] => {
    const found = blocks.find(
      (b) => b.some((s) => s.includes(word)) && !b.some((s) => not && s.includes(not)),
    );
    if (found === undefined) throw new Error(`docs/warehouse.md: no SQL block with ${word}`);
    return found;
  };
  return {
    writer: pick('GRANT CREATE ON DATABASE'),
    readers: pick('CREATE ROLE mintlify_read'),
    grants: pick('GRANT SELECT ON ALL TABLES'),
  };
}

const runPg = hasPostgres();

describe.runIf(runPg)('the read-only BI login of docs/warehouse.md, default search_path', () => {
  let server: PostgresServer;
  let admin: pg.Client;
  let bi: pg.Client;
  let place: Place;
  let dest: Destination;
  let key: Buffer;
  const as = (user: string): string => server.url.replace('postgres@', `${user}@`);

  beforeAll(async () => {
    server = await startPrivatePostgres();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const sql = docStatements();
    for (const s of [...sql.writer, ...sql.readers]) await admin.query(s);
    place = placeOf(parseDbTarget(as('mintlify_etl'), 'mintlify'));
    dest = await place.open('write');
    key = await eventHashKey(dest.session);
    await dest.session.run(
      insertEventsSql([
        { id: 'e1', type: 'docs.content.view', at: '2026-04-02T10:00:00Z', host: 'google.com' },
      ]),
    );
    await dest.session.run(
      `INSERT INTO assistant_turns (project_id, thread_id, ts, query, response, response_type, resolution_status, query_category, page_url, sources, loaded_at, run_id, window_start)
       VALUES ('docs-a', 't1', TIMESTAMPTZ '2026-04-02 10:00:00+00', 'Mail bob@corp.io about keys?', 'no idea', 'answer', 'unanswered', NULL, NULL, '[]'::jsonb, now(), 'run-1', DATE '2026-04-02')`,
    );
    const writer = new pg.Client({ connectionString: as('mintlify_etl') });
    await writer.connect();
    for (const s of sql.grants) await writer.query(s);
    await writer.end();
    bi = new pg.Client({ connectionString: as('metabase'), types: PLAIN_TYPES });
    await bi.connect();
  }, 120_000);

  afterAll(async () => {
    await bi?.end();
    await dest?.close();
    await admin?.end();
    await server?.stop();
  });

  it('has the default search_path, which names no schema of the tool', async () => {
    const r = await bi.query<{ search_path: string }>('SHOW search_path');
    expect(r.rows[0]?.search_path).toBe('"$user", public');
  });

  it('reads every view and table of the schema, schema-qualified', async () => {
    const rels = await admin.query<{ name: string; kind: string }>(
      `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'mintlify' AND c.relkind IN ('r', 'v') ORDER BY 1`,
    );
    expect(rels.rows.filter((r) => r.kind === 'v').length).toBeGreaterThan(20);
    const failed: string[] = [];
    for (const { name } of rels.rows) {
      await bi
        .query(`SELECT count(*) FROM mintlify."${name}"`)
        .catch((e: Error) => failed.push(`${name}: ${e.message}`));
    }
    expect(failed).toEqual([]);
  });

  it('calls every function of the schema, schema-qualified', async () => {
    const fns = await admin.query<{ name: string; args: string; set: boolean }>(
      `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, p.proretset AS set
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'mintlify' ORDER BY 1, 2`,
    );
    expect(fns.rows.map((f) => f.name)).toEqual(
      expect.arrayContaining(['question_key', 'redact_emails', 'content_gaps']),
    );
    const value: Record<string, string> = {
      text: `'How do I reach bob@corp.io?'`,
      integer: '28',
      date: `DATE '2026-04-03'`,
      boolean: 'false',
    };
    const failed: string[] = [];
    for (const f of fns.rows) {
      const args = f.args === '' ? [] : f.args.split(', ').map((a) => a.split(' ').slice(1).join(' '));
      const call = `mintlify.${f.name}(${args.map((t) => value[t] ?? 'NULL').join(', ')})`;
      const sql = f.set ? `SELECT count(*) FROM ${call}` : `SELECT ${call}`;
      await bi.query(sql).catch((e: Error) => failed.push(`${call}: ${e.message}`));
    }
    expect(failed).toEqual([]);
    const q = await bi.query<{ k: string }>(`SELECT mintlify.question_key('Mail BOB@corp.io??') AS k`);
    expect(q.rows[0]?.k).toBe('mail email');
  });

  it('reads v_assistant_unanswered with the question masked', async () => {
    const r = await bi.query<{ query: string; question_key: string }>(
      'SELECT query, question_key FROM mintlify.v_assistant_unanswered',
    );
    expect(r.rows).toEqual([{ query: 'Mail [email] about keys?', question_key: 'mail email about keys' }]);
  });

  it('cannot read the visitor hash key, held in a schema of its own outside what it was granted', async () => {
    const held = await admin.query<{ schema: string; table: string }>(
      `SELECT table_schema AS schema, table_name AS table FROM information_schema.columns WHERE column_name = 'hash_key'`,
    );
    expect(held.rows).toEqual([{ schema: 'mintlify_private', table: 'event_hash_key' }]);
    const stored = await admin.query<{ k: string }>(
      'SELECT hash_key AS k FROM mintlify_private.event_hash_key',
    );
    expect(stored.rows[0]?.k).toBe(key.toString('hex'));
    await expect(bi.query('SELECT hash_key FROM mintlify_private.event_hash_key')).rejects.toThrow(
      /permission denied/,
    );
  });

  it('cannot read the key after the next sync, whatever grants a DBA gave on it meanwhile', async () => {
    const writer = new pg.Client({ connectionString: as('mintlify_etl') });
    await writer.connect();
    await writer.query(
      'ALTER DEFAULT PRIVILEGES FOR ROLE mintlify_etl GRANT SELECT ON TABLES TO mintlify_read',
    );
    await writer.query('GRANT USAGE ON SCHEMA mintlify_private TO PUBLIC');
    await writer.query('GRANT SELECT ON mintlify_private.event_hash_key TO mintlify_read');
    await writer.end();
    const again = await placeOf(parseDbTarget(as('mintlify_etl'), 'mintlify')).open('write');
    try {
      expect((await eventHashKey(again.session)).equals(key)).toBe(true);
    } finally {
      await again.close();
    }
    await expect(bi.query('SELECT hash_key FROM mintlify_private.event_hash_key')).rejects.toThrow(
      /permission denied/,
    );
    const grants = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_namespace n, aclexplode(n.nspacl) a WHERE n.nspname = 'mintlify_private' AND a.grantee <> n.nspowner`,
    );
    expect(grants.rows[0]?.n).toBe(0);
  });

  it('gets the key refused by query, however it is spelled', async () => {
    const refused = [
      'SELECT hash_key FROM mintlify_private.event_hash_key',
      'SELECT * FROM "mintlify_private"."event_hash_key"',
      `SELECT query_to_xml('SELECT * FROM mintlify_private.event_' || 'hash_key', true, false, '')`,
      `SELECT table_to_xml(('mintlify_private.event_' || 'hash_key')::regclass, true, false, '')`,
      `DO $$ BEGIN EXECUTE 'SELECT 1'; END $$`,
    ];
    for (const sql of refused)
      await expect(
        place.runUserQuery(sql, {}, () => Promise.resolve(0)),
        sql,
      ).rejects.toThrow(/never reads the visitor hash key/);
    const rows = await place.runUserQuery(
      'SELECT visitor_key, query_to FROM analytics_events, (SELECT 1 AS query_to) q',
      {},
      async (s) => {
        const out: unknown[] = [];
        for await (const b of s.batches) out.push(...b);
        return out;
      },
    );
    expect(rows).toHaveLength(1);
  });
});
