import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { sqlDir } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';

/** A database as mintlify-etl with schema 2 left it: a loaded visitors day, no stream column. */
async function schemaTwoDatabase(): Promise<string> {
  const db = tempDbPath();
  const v2 = join(dirname(db), 'sql-v2');
  cpSync(sqlDir(), v2, { recursive: true });
  for (const name of readdirSync(join(v2, 'schema')))
    if (!/^00[12]_/.test(name)) rmSync(join(v2, 'schema', name));
  rmSync(join(v2, 'views'), { recursive: true });
  const conn = await openDatabase(db, { sqlDir: v2 });
  try {
    await conn.connection.run(
      `INSERT INTO site_daily VALUES ('docs', DATE '2026-03-01', 10, 2, 11, false, now(), 'r1');
       INSERT INTO page_daily VALUES ('docs', DATE '2026-03-01', '/a', 10, 2, 11);
       INSERT INTO sync_windows VALUES ('docs', DATE '2026-03-01', 'loaded', 1, 1, 11, 1, TIMESTAMPTZ '2026-03-05 02:00:00+00', 'r1', NULL);`,
    );
  } finally {
    conn.close();
  }
  return db;
}

describe('a database written by an older mintlify-etl', () => {
  it('is read by status, query and sync --dry-run through an upgraded copy, the file itself untouched', async () => {
    const db = await schemaTwoDatabase();
    const before = readFileSync(db);
    const env = { MINTLIFY_PROJECT_ID: 'docs' };
    const status = await runCli(['status', '--db', db, '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toMatch(
      /has schema version 2; read through a copy upgraded to \d+ \(the next sync upgrades the file itself\)/,
    );
    const s = JSON.parse(status.stdout) as {
      projects: { projectId: string; coverage: { daysLoaded: number } }[];
    };
    expect(s.projects[0]).toMatchObject({ projectId: 'docs', coverage: { daysLoaded: 1 } });
    const query = await runCli(
      ['query', '--db', db, '--format', 'csv', 'SELECT stream, window_start FROM sync_windows'],
      env,
    );
    expect(query.stdout).toBe('stream,window_start\nvisitors,2026-03-01\n');
    const dry = await runCli(
      ['sync', '--db', db, '--dry-run', '--from', '2026-03-01', '--to', '2026-03-03'],
      env,
    );
    expect(dry.code, dry.stderr).toBe(0);
    // Day streams: visitors 1 (03-01 is loaded) + views, searches, caller_stats 2 each; feedback
    // one month; assistant the ISO weeks of 2026-02-23 and 2026-03-02.
    expect(dry.stdout).toMatch(/^dry run: 10 window\(s\) to fetch/);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dirname(db)).sort()).toEqual(['analytics.duckdb', 'sql-v2']);
  });
});
