import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEMA, migratePostgres, postgresSqlDir } from '../../src/load/postgres/migrate.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

const runIf = hasPostgres();

describe.skipIf(!runIf)('migrating a PostgreSQL schema', () => {
  let server: PostgresServer | undefined;
  const clients: pg.Client[] = [];
  const cleanups: (() => void)[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
    cleanups.splice(0).forEach((c) => c());
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: server?.url });
    await c.connect();
    clients.push(c);
    return c;
  }

  async function names(c: pg.Client, schema: string, kind: 'tables' | 'views'): Promise<string[]> {
    const where = kind === 'tables' ? "AND table_type = 'BASE TABLE'" : '';
    const r = await c.query<{ n: string }>(
      `SELECT table_name AS n FROM information_schema.${kind} WHERE table_schema = $1 ${where} ORDER BY 1`,
      [schema],
    );
    return r.rows.map((x) => x.n);
  }

  it(`creates the schema ${DEFAULT_SCHEMA} when missing, records every migration, and a second run changes nothing`, async () => {
    const c = await connect();
    await migratePostgres(c);
    const first = await c.query('SELECT version, applied_at FROM schema_migrations ORDER BY version');
    expect(first.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 7]);
    expect(await names(c, DEFAULT_SCHEMA, 'views')).toContain('v_site_daily');
    await migratePostgres(await connect());
    const second = await c.query('SELECT version, applied_at FROM schema_migrations ORDER BY version');
    expect(second.rows).toEqual(first.rows);
    expect(await names(c, DEFAULT_SCHEMA, 'tables')).toContain('sync_windows');
  });

  it('keeps two schemas of one database apart, whatever their names', async () => {
    const c = await connect();
    await migratePostgres(c, { schema: 'team a' });
    await c.query("INSERT INTO site_daily VALUES ('p', DATE '2026-01-01', 1, 0, 1, false, now(), 'r')");
    await migratePostgres(c, { schema: 'Team"B' });
    expect((await c.query('SELECT count(*)::int AS n FROM site_daily')).rows[0]).toEqual({ n: 0 });
    expect(await names(c, 'team a', 'tables')).toEqual(await names(c, 'Team"B', 'tables'));
    expect((await c.query('SELECT count(*)::int AS n FROM "team a".site_daily')).rows[0]).toEqual({ n: 1 });
  });

  it('refuses a schema migrated by a newer mintlify-etl with a usage error naming the version', async () => {
    const c = await connect();
    await migratePostgres(c, { schema: 'newer' });
    await c.query('INSERT INTO schema_migrations VALUES (99, now())');
    await expect(migratePostgres(c, { schema: 'newer' })).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('schema version 99') as unknown,
    });
  });

  it('rolls a failing migration back whole and records nothing for it', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    cpSync(postgresSqlDir(), dir, { recursive: true });
    writeFileSync(
      join(dir, 'schema', '006_broken.sql'),
      'CREATE TABLE half_done (x int);\nSELECT no_such_column FROM half_done;\n',
    );
    const c = await connect();
    await expect(migratePostgres(c, { schema: 'broken', sqlDir: dir })).rejects.toMatchObject({
      code: 'E_INTERNAL',
      message: expect.stringContaining('006_broken.sql') as unknown,
    });
    expect(await names(c, 'broken', 'tables')).not.toContain('half_done');
    const versions = await c.query<{ v: number }>('SELECT max(version) AS v FROM broken.schema_migrations');
    expect(versions.rows[0]?.v).toBe(5);
  });
});
