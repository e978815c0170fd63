import { describe, expect, it } from 'vitest';
import { EXPORT_TABLES, monthChunks } from '../../src/load/export-plan.js';
import { addDays } from '../../src/util/day.js';

/*
 * Issue 36, item 12: a PARTITION_BY COPY holds every partition's rows until it ends, outside
 * DuckDB's memory limit. With 20,000 rows a statement, 3 years of assistant answers (~650 a month
 * of up to 32,000 characters, 52 MB in all) went in two statements, and export peaked at 340 MiB.
 */
describe('how much free text one export statement holds', () => {
  // Three years of a busy assistant: 650 turns a month, answers of 2,400 characters on average.
  const months = Array.from({ length: 36 }, (_, i) => ({
    month: `${String(2024 + Math.floor(i / 12))}-${String((i % 12) + 1).padStart(2, '0')}-01`,
    rows: 650,
  }));

  for (const table of ['feedback', 'assistant_turns', 'assistant_messages']) {
    it(`${table}: a few months of a busy site a statement, not years`, () => {
      const spec = EXPORT_TABLES.find((t) => t.table === table);
      const chunks = monthChunks(months, spec?.chunkRows);
      expect(Math.max(...chunks.map((c) => c.months))).toBeLessThanOrEqual(3);
      expect(chunks.at(-1)?.to).toBe(addDays('2026-12-31', 1));
    });
  }
});
