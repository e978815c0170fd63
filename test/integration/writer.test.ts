import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { startRun } from '../../src/load/runs.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import type { WindowLoad } from '../../src/load/site-page-rows.js';
import { WindowWriter } from '../../src/pipeline/writer.js';
import { tempDir } from '../helpers/duckdb-temp.js';

const t = tempDir();
afterAll(() => t.cleanup());

function win(day: string, paths: number): WindowLoad {
  return {
    projectId: 'p',
    day,
    site: { human: 1, ai: 1, total: 2 },
    pages: Array.from({ length: paths }, (_, i) => ({ path: `/p${i}`, human: 1, ai: 0, total: 1 })),
    partial: false,
    pagesFetched: 1,
    attempts: 1,
    runId: 'r',
    fetchedAt: new Date('2024-03-10T00:00:00.000Z'),
    apiTotalsTotal: 2,
  };
}

describe('the writer keeps the running record current', () => {
  it("writes the run's counters with each commit, so a killed or running run shows how far it got", async () => {
    const path = join(t.dir, 'writer.duckdb');
    const db = await openDatabase(path);
    await startRun(db.session, {
      runId: 'r',
      projectIds: ['p'],
      dateFrom: '2024-03-01',
      dateTo: '2024-03-03',
      windowsPlanned: 2,
      plannedDays: ['p:2024-03-01', 'p:2024-03-02'],
      startedAt: new Date('2024-03-10T00:00:00.000Z'),
    });
    db.close();
    const writer = new WindowWriter(path, {
      drainLedger: () => [],
      runProgress: (c) => ({ runId: 'r', windowsLoaded: c.windows, rowsLoaded: c.rows, requests: 7 }),
    });
    await Promise.all([writer.load(win('2024-03-01', 3)), writer.load(win('2024-03-02', 2))]);
    await writer.close();
    const check = await openDatabase(path, { readOnly: true });
    try {
      const rows = await queryRows(
        check.connection,
        "SELECT status, windows_loaded, rows_loaded::INT AS rows_loaded, requests FROM sync_runs WHERE run_id = 'r'",
      );
      expect(rows).toEqual([{ status: 'running', windows_loaded: 2, rows_loaded: 5, requests: 7 }]);
    } finally {
      check.close();
    }
  });
});
