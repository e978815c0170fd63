import { copyFileSync, openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { buildReportFixture } from '../helpers/report-fixture.js';

/*
 * DuckDB checks a block's checksum only when it reads the block, so a file whose data went bad
 * after it was written (a disk error, a cut copy that happens to keep the catalog) opens fine and
 * fails in the middle of a read command. That is the user's file, not a fault of the tool: exit 2
 * with the line that says to restore it or move it aside, as sync says.
 */

const tmp = tempDir('mintlify-etl-damaged-read-');
let healthy: string;
/** The first byte of a data block of each table the read commands read first. */
const blocks: Record<string, number> = {};

// DuckDB's file: three 4 KiB headers, then blocks of block_size bytes.
const HEADERS = 3 * 4096;

beforeAll(async () => {
  healthy = join(tmp.dir, 'healthy.duckdb');
  await buildReportFixture(healthy, { streams: ['views', 'searches', 'caller_stats'] });
  const db = await DuckDBInstance.create(healthy, { access_mode: 'READ_ONLY' });
  const conn = await db.connect();
  const size = (await conn.runAndReadAll('PRAGMA database_size')).getRowObjects()[0]?.['block_size'];
  for (const table of ['sync_windows']) {
    const r = await conn.runAndReadAll(
      `SELECT min(block_id) AS b FROM pragma_storage_info('${table}') WHERE persistent AND block_id >= 0`,
    );
    blocks[table] = HEADERS + Number(r.getRowObjects()[0]?.['b']) * Number(size);
  }
  conn.closeSync();
  db.closeSync();
});
afterAll(() => tmp.cleanup());

/** A copy of the database with 16 bytes of one table's first data block overwritten. */
function damagedCopy(table: string): string {
  const path = join(tmp.dir, `bad-${table}.duckdb`);
  copyFileSync(healthy, path);
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from('XXXXXXXXXXXXXXXX'), 0, 16, (blocks[table] as number) + 100);
  closeSync(fd);
  return path;
}

describe('a read command on a file whose data fails its checksum', () => {
  // Every read command reads the window ledger (coverage, loaded days): a bad block there reaches each.
  for (const command of ['status', 'report', 'gaps', 'digest']) {
    it(`${command} exits 2 saying the database is damaged, never "internal error"`, async () => {
      const r = await runCli([command, '--db', damagedCopy('sync_windows')]);
      expect(r.stderr).toMatch(/^mintlify-etl: database \S+ is damaged \(.*restore it from a backup/);
      expect(r.stderr).not.toContain('internal error');
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    });
  }
});
