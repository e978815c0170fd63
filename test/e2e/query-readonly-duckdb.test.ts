import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';

/*
 * The DuckDB side of issue 27's read-only attacks: the file is attached read-only and the
 * settings are locked, so no statement (a transaction, a setting, a re-attach) can write.
 */
describe('query on a DuckDB file stays read-only against the attacks that worked on PostgreSQL', () => {
  let db = '';
  const digest = (): string => createHash('sha256').update(readFileSync(db)).digest('hex');

  beforeAll(async () => {
    db = tempDbPath();
    const open = await openDatabase(db);
    await open.connection.run(
      "INSERT INTO site_daily VALUES ('p', DATE '2026-03-01', 10, 1, 11, false, now(), 'r')",
    );
    open.close();
  });

  it.each([
    ['a read-write setting, then a delete', "SET access_mode = 'read_write'; DELETE FROM site_daily"],
    ['a transaction around a delete', 'BEGIN TRANSACTION; DELETE FROM site_daily; COMMIT'],
    ['unlocking the settings', 'SET lock_configuration = false'],
    ['resetting every setting', 'RESET ALL; DELETE FROM site_daily'],
    ['attaching the file again read-write', "ATTACH '%DB%' AS w (READ_WRITE); DELETE FROM w.site_daily"],
  ])('refuses %s with exit 2 and leaves the file as it was', async (_what, sql) => {
    const before = digest();
    const r = await runCli(['query', '--db', db, sql.replace('%DB%', db)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(digest()).toBe(before);
    const count = await runCli([
      'query',
      '--db',
      db,
      '--format',
      'csv',
      'SELECT count(*) AS n FROM site_daily',
    ]);
    expect(count.stdout).toBe('n\n1\n');
  });
});
