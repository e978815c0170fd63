import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadable } from '../../src/load/duckdb/readable.js';
import { openDatabase, READER_MEMORY_LIMIT } from '../../src/load/duckdb/database.js';
import { duckExportSource } from '../../src/load/duckdb/export.js';
import { streamQuery } from '../../src/load/duckdb/user-query.js';

let dir: string;
let dbFile: string;

/** How DuckDB shows a memory_limit once set (e.g. '64MB' reads back as '61.0 MiB'). */
async function shown(limit: string | undefined): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    if (limit !== undefined) await conn.run(`SET memory_limit = '${limit}'`);
    const r = await conn.runAndReadAll("SELECT current_setting('memory_limit')");
    return String(r.getRows()[0]?.[0]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-read-memory-'));
  dbFile = join(dir, 'analytics.duckdb');
  (await openDatabase(dbFile)).close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the read commands’ DuckDB settings', () => {
  it('export, report and status read under READER_MEMORY_LIMIT, not DuckDB’s 80% of the machine', async () => {
    const db = await openReadable(dbFile, { memoryLimit: READER_MEMORY_LIMIT });
    try {
      const r = await db.connection.runAndReadAll("SELECT current_setting('memory_limit')");
      expect(String(r.getRows()[0]?.[0])).toBe(await shown(READER_MEMORY_LIMIT));
      expect(await shown(READER_MEMORY_LIMIT)).not.toBe(await shown(undefined));
    } finally {
      db.close();
    }
  });

  it('query (sandboxed: DuckDB cannot spill to its temp folder) keeps DuckDB’s default limit', async () => {
    const db = await openReadable(dbFile, { sandbox: true });
    try {
      const r = await db.connection.runAndReadAll("SELECT current_setting('memory_limit')");
      expect(String(r.getRows()[0]?.[0])).toBe(await shown(undefined));
    } finally {
      db.close();
    }
  });
});

describe('a read DuckDB refuses for memory', () => {
  // A distinct count of 70 MB of text: DuckDB does not spill it, so it fails under 64 MB.
  const unspillable =
    "SELECT count(DISTINCT v) AS n FROM (SELECT repeat('x', 10000) || i AS v FROM range(7000) t(i))";

  it('runs again with more room, and the reader’s own limit is back for the next statement', async () => {
    const db = await openReadable(dbFile, { memoryLimit: READER_MEMORY_LIMIT });
    try {
      const rows = await db.session.rows(unspillable);
      expect(rows).toEqual([{ n: 7000 }]);
      const after = await db.session.rows("SELECT current_setting('memory_limit') AS m");
      expect(after[0]?.['m']).toBe(await shown(READER_MEMORY_LIMIT));
    } finally {
      db.close();
    }
  });

  it('export’s COPY statements run again with more room too', async () => {
    const db = await openReadable(dbFile, { memoryLimit: READER_MEMORY_LIMIT });
    const out = join(dir, 'big.parquet');
    try {
      const n = await duckExportSource(db.connection).copy(
        // 70 MB of text sorted into one Parquet row group: fails under 64 MB.
        `COPY (SELECT repeat('x', 10000) || i AS v FROM range(7000) t(i) ORDER BY v) TO '${out}' (FORMAT parquet)`,
        { table: 'x', columns: [], where: '', scratch: dir },
      );
      expect(n).toBe(7000);
    } finally {
      db.close();
    }
  });
});

describe('streamQuery', () => {
  it('hands a large result over in DuckDB’s chunks, never the whole result at once', async () => {
    const db = await openReadable(dbFile, { sandbox: true });
    try {
      const n = 1_000_000;
      const { batches } = await streamQuery(db.connection, `SELECT range AS i FROM range(${n})`);
      let rows = 0;
      let chunks = 0;
      let largest = 0;
      let sum = 0;
      for await (const batch of batches) {
        chunks++;
        rows += batch.length;
        largest = Math.max(largest, batch.length);
        for (const [i] of batch) sum += Number(i);
      }
      expect(rows).toBe(n);
      expect(sum).toBe((n * (n - 1)) / 2);
      // DuckDB's vector size: a chunk is at most 2,048 rows.
      expect(largest).toBeLessThanOrEqual(2048);
      expect(chunks).toBeGreaterThanOrEqual(n / 2048);
    } finally {
      db.close();
    }
  });
});
