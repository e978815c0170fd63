import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * A sync opens its file to write several times (plan, writer, run record): the views are applied
 * by the first open of the process, not again by each (benchmark 11), yet a file that lost a view
 * gets it back at its next open.
 */
describe('views of a DuckDB file opened to write', () => {
  const creations = async (path: string): Promise<string> => {
    const db = await openDatabase(path);
    try {
      const rows = await queryRows(
        db.connection,
        "SELECT sql FROM duckdb_views() WHERE view_name = 'v_site_daily'",
      );
      return rows[0]?.['sql'] as string;
    } finally {
      db.close();
    }
  };

  it('are not re-created by a second open in the same process, and a dropped one comes back', async () => {
    const tmp = tempDir();
    const path = join(tmp.dir, 'views-once.duckdb');
    expect(await creations(path)).toContain('v_site_daily');
    // A marker in the view's own text: a re-creation would replace it.
    const db = await openDatabase(path);
    await db.connection.run(
      "CREATE OR REPLACE VIEW v_site_daily AS SELECT 'marker' AS m, * FROM (SELECT 1 AS x) AS t",
    );
    db.close();
    expect(await creations(path)).toContain("'marker'");

    const again = await openDatabase(path);
    await again.connection.run('DROP VIEW v_page_trends');
    again.close();
    expect(await creations(path)).not.toContain("'marker'");
    const check = await openDatabase(path);
    try {
      const rows = await queryRows(
        check.connection,
        "SELECT count(*) AS n FROM duckdb_views() WHERE view_name = 'v_page_trends'",
      );
      expect(Number(rows[0]?.['n'])).toBe(1);
    } finally {
      check.close();
      tmp.cleanup();
    }
  });
});
