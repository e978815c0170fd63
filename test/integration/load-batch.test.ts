import { join } from 'node:path';
import { afterAll, beforeAll, it, expect } from 'vitest';
import { openDatabase, type Database } from '../../src/load/database.js';
import { loadWindowBatch } from '../../src/load/batch-loader.js';
import { queryRows } from '../../src/load/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';
let db: Database; let cleanup: () => void;
beforeAll(async () => { const t = tempDir(); cleanup = t.cleanup; db = await openDatabase(join(t.dir, 'b.duckdb')); });
afterAll(() => { db.close(); cleanup(); });
it('smoke', async () => {
  const w = (day: string, n: number) => ({ projectId: 'p', day, site: { human: 1, ai: 2, total: 3 }, pages: Array.from({ length: n }, (_, i) => ({ path: '/x' + i, human: i, ai: 0, total: i })), partial: false, pagesFetched: 1, attempts: 1, runId: 'r', fetchedAt: new Date(), apiTotalsTotal: 3 });
  await loadWindowBatch(db, [w('2024-01-01', 3), w('2024-01-02', 2)]);
  await loadWindowBatch(db, [w('2024-01-01', 1), w('2024-01-03', 2)]);
  expect(await queryRows(db.connection, 'select day, count(*) n from page_daily group by all order by 1')).toEqual([]);
});
