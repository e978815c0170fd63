import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { startPostgres, type PostgresServer } from './postgres.js';

/**
 * Inside a describe: a PostgreSQL server for it, and a client (plain types) whose search_path is a
 * migrated `schema` holding what `statements` insert. Returns the client, once beforeAll has run.
 */
export function pgSchemaWith(schema: string, statements: readonly string[]): () => pg.Client {
  let server: PostgresServer | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema });
    await client.query(`SET search_path TO ${schema}`);
    for (const sql of statements) await client.query(sql);
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await server?.stop();
  });
  return () => {
    if (client === undefined) throw new Error('pgSchemaWith: the client is made in beforeAll');
    return client;
  };
}
