import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { sqlDir } from '../../src/paths.js';
import { hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * Every sync migrates the schema it writes. On a warehouse that BI tools read all day that must
 * change nothing when nothing changed: the views stay (with the grants a DBA gave on them, and
 * without taking a lock that queues every reader), and a writer that may not create schemas can
 * still migrate the one a DBA made for it.
 */
describe.skipIf(!hasPostgres())('migrating a PostgreSQL schema', () => {
  let server: PostgresServer;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    server = await startPrivatePostgres();
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await server?.stop();
  });

  async function connect(user = 'postgres'): Promise<pg.Client> {
    const url = new URL(server.url);
    url.username = user;
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    clients.push(c);
    return c;
  }

  it('keeps the views, and the grants given on them, when nothing changed', async () => {
    const admin = await connect();
    await migratePostgres(admin, { schema: 'keep' });
    await admin.query('CREATE ROLE bi_keep LOGIN');
    await admin.query('GRANT USAGE ON SCHEMA keep TO bi_keep');
    await admin.query('GRANT SELECT ON keep.v_site_daily TO bi_keep');
    const before = await admin.query<{ oid: number }>("SELECT 'keep.v_site_daily'::regclass::oid AS oid");
    await migratePostgres(admin, { schema: 'keep' });
    const after = await admin.query<{ oid: number }>("SELECT 'keep.v_site_daily'::regclass::oid AS oid");
    expect(after.rows[0]?.oid).toBe(before.rows[0]?.oid);
    const granted = await admin.query<{ ok: boolean }>(
      "SELECT has_table_privilege('bi_keep', 'keep.v_site_daily', 'SELECT') AS ok",
    );
    expect(granted.rows[0]?.ok).toBe(true);
  });

  it('does not wait for a reader in the middle of a long transaction on a view', async () => {
    const admin = await connect();
    await migratePostgres(admin, { schema: 'busy' });
    const reader = await connect();
    await reader.query('BEGIN');
    await reader.query('SELECT count(*) FROM busy.v_site_daily');
    // The reader holds its lock on the view until it ends; a DROP VIEW would wait for it.
    const writer = await connect();
    await writer.query("SET lock_timeout = '2s'");
    await migratePostgres(writer, { schema: 'busy' });
    await reader.query('COMMIT');
  });

  it('recreates the views when a view shipped with a new version changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-sql-'));
    try {
      cpSync(sqlDir(), dir, { recursive: true });
      const admin = await connect();
      await migratePostgres(admin, { schema: 'changed', sqlDir: dir });
      const file = readdirSync(join(dir, 'views')).find((f) =>
        readFileSync(join(dir, 'views', f), 'utf8').includes('v_coverage'),
      );
      expect(file).toBeDefined();
      const path = join(dir, 'views', file as string);
      writeFileSync(
        path,
        `${readFileSync(path, 'utf8')}\n-- a new version\nCREATE OR REPLACE VIEW v_probe AS SELECT 1 AS one;\n`,
      );
      await migratePostgres(admin, { schema: 'changed', sqlDir: dir });
      const probe = await admin.query<{ one: number }>('SELECT one FROM changed.v_probe');
      expect(probe.rows[0]?.one).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to upgrade views a user built on, naming the object, and drops nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-sql-'));
    try {
      cpSync(sqlDir(), dir, { recursive: true });
      const admin = await connect();
      await migratePostgres(admin, { schema: 'built_on', sqlDir: dir });
      await admin.query('CREATE VIEW built_on.my_dashboard AS SELECT day FROM built_on.v_site_daily');
      const file = readdirSync(join(dir, 'views')).sort()[0] as string;
      const path = join(dir, 'views', file);
      writeFileSync(path, `${readFileSync(path, 'utf8')}\n-- a new version\n`);
      await expect(migratePostgres(admin, { schema: 'built_on', sqlDir: dir })).rejects.toThrow(
        /changes the view v_site_daily, and another object depends on it \(.*my_dashboard.*\): drop that object/,
      );
      const still = await admin.query('SELECT count(*) FROM built_on.my_dashboard');
      expect(still.rowCount).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates a schema a DBA created for a writer that may not create schemas', async () => {
    const admin = await connect();
    await admin.query('CREATE ROLE etl_writer LOGIN');
    await admin.query('CREATE SCHEMA granted AUTHORIZATION etl_writer');
    const writer = await connect('etl_writer');
    // The key's schema beside it is the DBA's to make too; until then nothing is created.
    await expect(migratePostgres(writer, { schema: 'granted' })).rejects.toThrow(
      'as an administrator, run CREATE SCHEMA "granted_private" AUTHORIZATION etl_writer; then sync again (nothing was changed)',
    );
    const none = await admin.query("SELECT 1 FROM pg_tables WHERE schemaname = 'granted'");
    expect(none.rowCount).toBe(0);
    await admin.query('CREATE SCHEMA granted_private AUTHORIZATION etl_writer');
    await migratePostgres(writer, { schema: 'granted' });
    const n = await writer.query<{ n: string }>('SELECT count(*) AS n FROM granted.sync_windows');
    expect(Number(n.rows[0]?.n)).toBe(0);
  });
});
