import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { hasPostgres, startPrivatePostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * Issue 27 item 4: the PostgreSQL destination owns only what it created. An object of one of its
 * names that it did not create (another role's, or the user's own), a function of another role in
 * its schema, or a trigger on its tables stops the run before anything is written or created:
 * exit 2, one line naming the object and what to do. Nothing foreign is written through, altered
 * or dropped.
 */
describe.skipIf(!hasPostgres())('a PostgreSQL schema holding objects mintlify-etl did not create', () => {
  let server: PostgresServer;
  let emu: Emulator;
  let admin: pg.Client;
  const from = addDays(todayUtc(), -3);

  beforeAll(async () => {
    [server, emu] = await Promise.all([
      startPrivatePostgres(),
      startEmulator({ seed: 3, days: 10, paths: 10 }),
    ]);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // The writer, and another role allowed to create objects in the writer's schemas.
    await admin.query('CREATE ROLE etl LOGIN');
    await admin.query('CREATE ROLE mallory LOGIN');
    await admin.query('CREATE SCHEMA mal AUTHORIZATION mallory');
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await emu?.close();
    await server?.stop();
  });

  const urlOf = (user: string): string => {
    const u = new URL(server.url);
    u.username = user;
    return u.toString();
  };
  const sync = (schema: string) =>
    runCli(['sync', '--db', urlOf('etl'), '--schema', schema, '--streams', 'visitors', '--from', from], {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
    });
  async function as<T>(user: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const c = new pg.Client({ connectionString: urlOf(user) });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  }
  /** A schema the writer owns, in which mallory may create objects too. */
  async function sharedSchema(name: string): Promise<void> {
    await admin.query(`CREATE SCHEMA ${name} AUTHORIZATION etl`);
    await admin.query(`GRANT USAGE, CREATE ON SCHEMA ${name} TO mallory`);
  }
  const relations = async (schema: string): Promise<string[]> =>
    (
      await admin.query<{ r: string }>(
        `SELECT relname AS r FROM pg_class WHERE relnamespace = $1::regnamespace ORDER BY 1`,
        [schema],
      )
    ).rows.map((x) => x.r);
  function refusedOneLine(r: { code: number | null; stderr: string }, line: RegExp): void {
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  }

  it("refuses another role's site_daily with a BEFORE trigger: the trigger never runs and nothing is created", async () => {
    await sharedSchema('planted');
    await as('mallory', async (c) => {
      await c.query('CREATE TABLE mal.loot (project_id text, human bigint)');
      await c.query('GRANT INSERT ON mal.loot TO PUBLIC');
      await c.query('GRANT USAGE ON SCHEMA mal TO PUBLIC');
      await c.query(`CREATE TABLE planted.site_daily (
        project_id text NOT NULL, day date NOT NULL, human bigint NOT NULL, ai bigint NOT NULL,
        total bigint NOT NULL, partial boolean NOT NULL DEFAULT false, loaded_at timestamptz NOT NULL,
        run_id text NOT NULL, PRIMARY KEY (project_id, day))`);
      await c.query('GRANT ALL ON planted.site_daily TO etl');
      await c.query(`CREATE FUNCTION mal.steal() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO mal.loot VALUES (NEW.project_id, NEW.human); NEW.human := 0; RETURN NEW; END $$`);
      await c.query(
        'CREATE TRIGGER steal BEFORE INSERT ON planted.site_daily FOR EACH ROW EXECUTE FUNCTION mal.steal()',
      );
    });
    const before = await relations('planted');
    const r = await sync('planted');
    refusedOneLine(
      r,
      /schema planted .* holds a table site_daily that mintlify-etl did not create \(it is owned by mallory.*rename it .* or drop it/,
    );
    expect((await admin.query('SELECT * FROM mal.loot')).rowCount).toBe(0);
    expect(await relations('planted')).toEqual(before);
  });

  it("refuses the user's own view v_site_daily, made by the writer itself, and keeps it as it was", async () => {
    await sharedSchema('ownview');
    await as('etl', (c) => c.query('CREATE VIEW ownview.v_site_daily AS SELECT 1 AS mine'));
    const r = await sync('ownview');
    refusedOneLine(
      r,
      /holds a view v_site_daily that mintlify-etl did not create \(it has no mintlify-etl comment\).*ALTER VIEW ownview\.v_site_daily RENAME/,
    );
    expect((await admin.query('SELECT mine FROM ownview.v_site_daily')).rows).toEqual([{ mine: 1 }]);
    expect(await relations('ownview')).toEqual(['v_site_daily']);
  });

  it("refuses another role's sync_runs without altering it, and creates none of the other tables", async () => {
    await sharedSchema('foreignruns');
    await as('mallory', (c) =>
      c.query('CREATE TABLE foreignruns.sync_runs (run_id text PRIMARY KEY, note text)'),
    );
    const r = await sync('foreignruns');
    refusedOneLine(r, /holds a table sync_runs that mintlify-etl did not create \(it is owned by mallory/);
    const cols = await admin.query<{ c: string }>(
      "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'foreignruns' ORDER BY ordinal_position",
    );
    expect(cols.rows.map((x) => x.c)).toEqual(['run_id', 'note']);
    expect(await relations('foreignruns')).toEqual(['sync_runs', 'sync_runs_pkey']);
  });

  it("refuses a function of another role in its schema, which the tool's SQL could resolve instead of the built-in", async () => {
    await sharedSchema('overload');
    await as('mallory', (c) =>
      c.query(
        `CREATE FUNCTION overload.lower(s character varying) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$`,
      ),
    );
    const r = await sync('overload');
    refusedOneLine(
      r,
      /holds a function lower\(s character varying\) that mintlify-etl did not create \(it is owned by mallory.*DROP FUNCTION overload\.lower/,
    );
    expect(await relations('overload')).toEqual([]);
  });

  it('refuses a trigger another role added to its own table, and loads again once it is dropped', async () => {
    // A DBA-made schema, and its key schema beside it (docs/warehouse.md: the writer may not create schemas).
    await admin.query('CREATE SCHEMA trig AUTHORIZATION etl');
    await admin.query('CREATE SCHEMA trig_private AUTHORIZATION etl');
    const first = await sync('trig');
    expect(first.code, first.stderr).toBe(0);
    await admin.query('GRANT USAGE ON SCHEMA trig TO mallory');
    await admin.query('GRANT TRIGGER ON trig.site_daily TO mallory');
    await as('mallory', async (c) => {
      await c.query(`CREATE FUNCTION mal.zero() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.human := 0; RETURN NEW; END $$`);
      await c.query(
        'CREATE TRIGGER zero BEFORE INSERT ON trig.site_daily FOR EACH ROW EXECUTE FUNCTION mal.zero()',
      );
    });
    await admin.query('DELETE FROM trig.sync_windows');
    const r = await sync('trig');
    refusedOneLine(
      r,
      /table trig\.site_daily .* has a trigger zero that mintlify-etl did not create.*DROP TRIGGER zero ON trig\.site_daily/,
    );
    await admin.query('DROP TRIGGER zero ON trig.site_daily');
    const again = await sync('trig');
    expect(again.code, again.stderr).toBe(0);
    const zeros = await admin.query('SELECT 1 FROM trig.site_daily WHERE human = 0 AND total > 0');
    expect(zeros.rowCount).toBe(0);
  });

  it('adopts a schema an earlier version made (no marks yet), and marks its tables and functions as its own', async () => {
    await admin.query('CREATE SCHEMA legacy AUTHORIZATION etl');
    await admin.query('CREATE SCHEMA legacy_private AUTHORIZATION etl');
    expect((await sync('legacy')).code).toBe(0);
    await as('etl', async (c) => {
      const t = await c.query<{ r: string }>(
        "SELECT relname AS r FROM pg_class WHERE relnamespace = 'legacy'::regnamespace AND relkind = 'r'",
      );
      for (const { r } of t.rows) await c.query(`COMMENT ON TABLE legacy.${r} IS NULL`);
    });
    const again = await sync('legacy');
    expect(again.code, again.stderr).toBe(0);
    const unmarked = await admin.query(
      "SELECT relname FROM pg_class WHERE relnamespace = 'legacy'::regnamespace AND relkind = 'r' AND obj_description(oid, 'pg_class') IS NULL",
    );
    expect(unmarked.rows).toEqual([]);
  });
});
