import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryBeforeObject } from '../../src/load/duckdb/event-memory.js';

/*
 * Issue 35, item 15: the writer's first object looks at the table for a huge value an earlier run
 * left in its open row group (event-memory.ts). DuckDB's storage info lists every segment of every
 * column of every row group: over 20 million events it took 0.7-1.2 s of each nightly run. The
 * table's column statistics say at once whether any value was ever that large; only then is the
 * open row group looked at.
 */

const MIB = 2 ** 20;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A writer's connection (memory_limit 32MB, as place.ts opens it) over a table of `fill`. */
async function writer(
  fill: string,
): Promise<{ conn: DuckDBConnection; statements: string[]; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'event-memory-check-'));
  dirs.push(dir);
  const instance = await DuckDBInstance.create(join(dir, 'a.duckdb'), { memory_limit: '256MB' });
  const conn = await instance.connect();
  await conn.run('CREATE TABLE analytics_events (event_id VARCHAR NOT NULL, path VARCHAR, properties JSON)');
  await conn.run(fill);
  await conn.run('CHECKPOINT');
  await conn.run("SET memory_limit = '32MB'");
  // Every statement the check sends, as DuckDB receives it.
  const statements: string[] = [];
  const run = conn.run.bind(conn);
  const read = conn.runAndReadAll.bind(conn);
  conn.run = (sql, ...rest) => (statements.push(sql), run(sql, ...rest));
  conn.runAndReadAll = (sql, ...rest) => (statements.push(sql), read(sql, ...rest));
  return {
    conn,
    statements,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

async function limitOf(conn: DuckDBConnection): Promise<string> {
  const r = await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
  return String(r.getRows()[0]?.[0]);
}

/** `rows` events, the sixth with a 16 MiB value in properties (the rest `{}`). */
const rowsWithOneHugeValue = (rows: number): string =>
  `INSERT INTO analytics_events SELECT 'ev-' || i, '/p', CASE WHEN i = 5 THEN json_object('blob', repeat('x', ${16 * MIB})) ELSE '{}' END
   FROM range(${rows}) r(i)`;
describe("the writer's first look at the table", () => {
  it('never reads the storage info of a table whose values were never huge (it lists every row group)', async () => {
    const w = await writer(
      `INSERT INTO analytics_events SELECT 'ev-' || i, '/docs/page-' || (i % 300), json_object('answer', repeat('a', (i % 50) * 40))
       FROM range(300000) r(i)`,
    );
    try {
      await memoryBeforeObject(w.conn, 'analytics_events');
      expect(w.statements.filter((s) => /storage_info/i.test(s))).toEqual([]);
      expect(await limitOf(w.conn)).toBe('30.5 MiB');
    } finally {
      w.close();
    }
  });

  it('raises the limit when the open row group holds a value of 16 MiB', async () => {
    const w = await writer(rowsWithOneHugeValue(1000));
    try {
      await memoryBeforeObject(w.conn, 'analytics_events');
      expect(await limitOf(w.conn)).not.toBe('30.5 MiB');
    } finally {
      w.close();
    }
  });

  it('keeps the limit when the huge value is in a row group filled before the open one', async () => {
    const w = await writer(rowsWithOneHugeValue(300000));
    try {
      await memoryBeforeObject(w.conn, 'analytics_events');
      expect(await limitOf(w.conn)).toBe('30.5 MiB');
    } finally {
      w.close();
    }
  });
});
