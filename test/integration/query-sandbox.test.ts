import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

let cleanup: () => void;
let dir: string;
let db: Database;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  dir = t.dir;
  const file = join(dir, 'sandbox.duckdb');
  // Created read-write (migrated) first, then opened the way `query` opens it.
  (await openDatabase(file)).close();
  db = await openDatabase(file, { readOnly: true, sandbox: true });
});
afterAll(() => {
  db.close();
  cleanup();
});

async function settings(): Promise<Record<string, unknown>> {
  const [row] = await queryRows(
    db.connection,
    `SELECT current_setting('enable_external_access') AS external,
            current_setting('lock_configuration') AS locked`,
  );
  return row ?? {};
}

describe("query's sandbox", () => {
  it('starts with file access off and the configuration locked', async () => {
    expect(await settings()).toEqual({ external: false, locked: true });
  });

  // Whatever DuckDB's message says, what matters is that the settings did not move: an unlocked
  // configuration lets the user's SQL change any other setting. (DuckDB does not report
  // disabled_filesystems through current_setting, so that one is checked by a read below.)
  it.each([
    ['unlocking the configuration', 'SET lock_configuration = false'],
    ['turning external access back on', 'SET enable_external_access = true'],
    ['enabling the local file system again', "SET disabled_filesystems = ''"],
    ['resetting the disabled file systems', 'RESET disabled_filesystems'],
  ])('refuses %s and keeps every setting as it was', async (_what, sql) => {
    const before = await settings();
    await expect(db.connection.run(sql)).rejects.toThrow();
    expect(await settings()).toEqual(before);
    expect(before).toEqual({ external: false, locked: true });
  });

  it('still cannot read another file after every attempt to loosen it', async () => {
    const csv = join(dir, 'other.csv');
    writeFileSync(csv, 'a\n1\n');
    for (const sql of ['SET lock_configuration = false', "SET disabled_filesystems = ''"]) {
      await db.connection.run(sql).catch(() => undefined);
    }
    await expect(
      db.connection.run(`SELECT * FROM read_csv('${csv.replaceAll("'", "''")}')`),
    ).rejects.toThrow();
  });
});
