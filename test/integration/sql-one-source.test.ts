import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/database.js';
import { DUCKDB_DIALECT } from '../../src/load/duckdb/dialect.js';
import { POSTGRES_DIALECT } from '../../src/load/postgres/dialect.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { renderedSqlFiles } from '../../src/load/sql-source.js';
import { sqlDir } from '../../src/paths.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { duckCatalog, pgCatalog, type SqlCatalog } from '../helpers/sql-catalog.js';

/*
 * Issue 28: every table, view and macro is written once under sql/ and rendered per destination.
 * Migrations are versioned and already applied to users' databases, so the rendered text must
 * build exactly what the two copies of the files built before: the catalog of a destination
 * migrated from them (test/fixtures/sql-catalog.json, taken from the last version with two copies,
 * commit 93b073a) is the contract. MINTLIFY_ETL_WRITE_SQL_CATALOG=1 writes it instead of comparing
 * (only ever from those old files).
 */

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'sql-catalog.json');
const WRITE = process.env['MINTLIFY_ETL_WRITE_SQL_CATALOG'] === '1';
/** Where the files to read are: the old PostgreSQL copies while writing the fixture. */
const PG_DIR = process.env['MINTLIFY_ETL_SQL_CATALOG_PG_DIR'] ?? sqlDir();

type Fixture = Partial<Record<'duckdb' | 'postgres', SqlCatalog>>;

function fixture(): Fixture {
  return existsSync(FIXTURE) ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture) : {};
}

function record(key: 'duckdb' | 'postgres', catalog: SqlCatalog): void {
  writeFileSync(FIXTURE, `${JSON.stringify({ ...fixture(), [key]: catalog }, null, 2)}\n`);
}

describe('one SQL source, rendered per destination', () => {
  it('renders every migration and view for both destinations with no fragment left over', async () => {
    for (const dialect of [DUCKDB_DIALECT, POSTGRES_DIALECT]) {
      for (const part of ['schema', 'views'] as const) {
        const files = await renderedSqlFiles(sqlDir(), part, dialect);
        expect(files.length).toBeGreaterThan(0);
        for (const f of files) expect(f.sql, f.name).not.toMatch(/\{\{|\}\}/);
      }
    }
  });

  it('a DuckDB file migrated from the one source has the catalog the DuckDB copies built', async () => {
    const db = await openDatabase(tempDbPath());
    try {
      const catalog = await duckCatalog(db.connection);
      if (WRITE) record('duckdb', catalog);
      else expect(catalog).toEqual(fixture().duckdb);
    } finally {
      db.close();
    }
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

    it('a PostgreSQL schema migrated from the one source has the catalog the PostgreSQL copies built', async () => {
      await migratePostgres(client, { schema: 'catalog', sqlDir: PG_DIR });
      const catalog = await pgCatalog(client, 'catalog');
      if (WRITE) record('postgres', catalog);
      else expect(catalog).toEqual(fixture().postgres);
    });
  });
});
