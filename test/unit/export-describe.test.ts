import { describe, expect, it } from 'vitest';
import { describeExport } from '../../src/cli/export-action.js';
import type { ExportSummary } from '../../src/load/export-plan.js';

const base: ExportSummary = {
  out: '/tmp/out',
  format: 'parquet',
  range: null,
  tables: [],
  skipped: [],
  skippedColumns: [],
  durationMs: 1200,
};

describe("export's summary", () => {
  it('names every table without rows once, under "skipped (no data)", whether or not a writer ran for it', () => {
    const text = describeExport({
      ...base,
      tables: [
        {
          table: 'site_daily',
          dir: '/tmp/out/site_daily',
          rows: 0,
          files: 0,
          partitions: 0,
          removedFiles: 0,
        },
        {
          table: 'page_daily',
          dir: '/tmp/out/page_daily',
          rows: 3,
          files: 1,
          partitions: 1,
          removedFiles: 0,
        },
      ],
      skipped: [{ table: 'feedback', reason: 'empty' }],
    });
    expect(text).not.toMatch(/0 row\(s\) in 0 file\(s\)/);
    expect(text).toMatch(/page_daily +3 row\(s\) in 1 file\(s\), 1 partition\(s\)/);
    expect(text).toMatch(/skipped \(no data\): site_daily, feedback/);
  });

  it('still lists an emptied table whose stale files it removed', () => {
    const text = describeExport({
      ...base,
      tables: [{ table: 'site_daily', dir: '/x', rows: 0, files: 0, partitions: 0, removedFiles: 2 }],
    });
    expect(text).toMatch(
      /site_daily +0 row\(s\) in 0 file\(s\), 0 partition\(s\), 2 stale file\(s\) removed/,
    );
  });
});
