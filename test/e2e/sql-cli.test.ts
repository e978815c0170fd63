import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { duckCatalog, pgCatalog } from '../helpers/sql-catalog.js';

/*
 * Issue 28: `mintlify-etl sql` prints what a first migration applies to an empty destination, for
 * a DBA, a code review or pasting into duckdb / psql, without any database. Pasted, it builds what
 * the tool builds: the same tables, columns, keys, views, macros or functions (and on PostgreSQL
 * the markers and the views' version), so a sync afterwards takes the destination as its own and
 * changes nothing.
 */

describe('mintlify-etl sql', () => {
  it('prints the DuckDB SQL, file by file, and pasted into a fresh DuckDB it builds what the tool builds', async () => {
    const r = await runCli(['sql', '--destination', 'duckdb']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^-- schema\/001_init\.sql$/m);
    expect(r.stdout).toMatch(/^-- views\/150_v_gap_outcomes\.sql$/m);
    expect(r.stdout).not.toMatch(/\{\{/);

    const pasted = await DuckDBInstance.create(':memory:');
    const conn = await pasted.connect();
    await conn.run(r.stdout);
    const db = await openDatabase(tempDbPath());
    try {
      expect(await duckCatalog(conn)).toEqual(await duckCatalog(db.connection));
      const versions = async (c: typeof conn): Promise<unknown[]> =>
        (await c.runAndReadAll('SELECT version FROM schema_migrations ORDER BY 1')).getRows();
      expect(await versions(conn)).toEqual(await versions(db.connection));
    } finally {
      db.close();
      conn.closeSync();
      pasted.closeSync();
    }
  });

  it('explains itself in --help and refuses a destination it does not know', async () => {
    const help = await runCli(['sql', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--destination <duckdb\|postgres>/);
    expect(help.stdout).toMatch(/psql/);
    const bad = await runCli(['sql', '--destination', 'oracle']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/duckdb or postgres/);
    const system = await runCli(['sql', '--destination', 'postgres', '--schema', 'pg_catalog']);
    expect(system.code).toBe(2);
    expect(system.stderr).toMatch(/system schema/);
  });

  describe.skipIf(!hasPostgres())('on PostgreSQL', () => {
    let server: PostgresServer;
    let client: pg.Client;
    beforeAll(async () => {
      server = await startPostgres();
      client = new pg.Client({ connectionString: server.url });
      await client.connect();
    }, 120_000);
    afterAll(async () => {
      await client?.end();
      await server?.stop();
    });

    it('prints the PostgreSQL SQL for a schema, and pasted into a server it builds what a sync builds', async () => {
      const r = await runCli(['sql', '--destination', 'postgres', '--schema', 'pasted']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^SET search_path TO "pasted";$/m);
      await client.query(r.stdout);
      await client.query('SET search_path TO public');
      await migratePostgres(client, { schema: 'migrated' });
      expect(await pgCatalog(client, 'pasted')).toEqual(await pgCatalog(client, 'migrated'));

      // The tool takes the pasted schema as its own, and finds its views current: nothing changes.
      const views = async (): Promise<{ oid: number }[]> =>
        (
          await client.query<{ oid: number }>(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pasted' AND c.relkind = 'v' ORDER BY 1",
          )
        ).rows;
      const before = await views();
      const result = await migratePostgres(client, { schema: 'pasted' });
      expect(result.notes).toEqual([]);
      expect(await views()).toEqual(before);
    });
  });
});
