import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { freePort, hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * A PostgreSQL destination that cannot be used stops every command before the API is asked
 * anything: one line naming host, port, database and user (never the password), exit 2.
 */
describe.skipIf(!hasPostgres())('a PostgreSQL destination that cannot be used', () => {
  let server: PostgresServer;
  let emu: Emulator;
  const PASSWORD = 'pw-Zq81-never-shown';

  beforeAll(async () => {
    server = await startPrivatePostgres();
    emu = await startEmulator({ seed: 5, days: 10, paths: 20 });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // A user who may log in but not create a schema in the database.
    await admin.query('CREATE ROLE reader LOGIN');
    await admin.end();
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
    await server?.stop();
  });

  const env = (): Record<string, string> => ({
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
  });

  async function refused(url: string, line: RegExp): Promise<void> {
    const before = emu.stats.requests;
    const r = await runCli(['sync', '--db', url], env());
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(r.stderr + r.stdout).not.toContain(PASSWORD);
    expect(emu.stats.requests).toBe(before);
  }

  it('says it cannot reach a server that is not there, naming where it looked', async () => {
    const port = await freePort();
    await refused(
      `postgresql://someone:${PASSWORD}@127.0.0.1:${port}/warehouse`,
      new RegExp(
        `cannot reach PostgreSQL \\(host 127\\.0\\.0\\.1, port ${port}, database warehouse, user someone\\)`,
      ),
    );
  });

  it('says the login was refused for a user the server does not know', async () => {
    const url = new URL(server.url);
    await refused(
      `postgresql://ghost:${PASSWORD}@127.0.0.1:${url.port}/mintlify_test`,
      /PostgreSQL refused the login \(host 127\.0\.0\.1, port \d+, database mintlify_test, user ghost\)/,
    );
  });

  it('says the database does not exist', async () => {
    const url = new URL(server.url);
    await refused(
      `postgresql://postgres:${PASSWORD}@127.0.0.1:${url.port}/no_such_db`,
      /the database does not exist \(.*database no_such_db.*\).*createdb/,
    );
  });

  it('says which right is missing when the user may not create the schema', async () => {
    const url = new URL(server.url);
    await refused(
      `postgresql://reader:${PASSWORD}@127.0.0.1:${url.port}/mintlify_test`,
      /lacks a right .* schema mintlify .*user reader.*GRANT CREATE ON DATABASE mintlify_test TO reader/,
    );
  });

  it('never creates a folder named after the URL, as a DuckDB path would', async () => {
    const port = await freePort();
    const r = await runCli(['status', '--db', `postgres://x@127.0.0.1:${port}/d`], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach PostgreSQL/);
  });
});
