import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { startRun } from '../../src/util/run-state.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * A sync opens its file to write several times (plan, writer, run record), and every run opens it
 * again: the views are applied when the file does not hold this version's views (each carries the
 * version's tag as its comment), not again at each open (benchmark 11). A file that lost a view,
 * holds one replaced by hand or one of another version gets them all back at its next open.
 */
describe('views of a DuckDB file opened to write', () => {
  const withDb = async <T>(
    path: string,
    fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
  ): Promise<T> => {
    // Every open is a new run, as a new process would be: nothing remembered in between.
    startRun();
    const db = await openDatabase(path);
    try {
      return await fn(db);
    } finally {
      db.close();
    }
  };
  const one = async (path: string, sql: string): Promise<unknown> =>
    withDb(path, async (db) => (await queryRows(db.connection, sql))[0]?.['v']);
  const siteDaily = (path: string): Promise<unknown> =>
    one(path, "SELECT sql AS v FROM duckdb_views() WHERE view_name = 'v_site_daily'");
  const tagOf = (path: string): Promise<unknown> =>
    one(path, "SELECT comment AS v FROM duckdb_views() WHERE view_name = 'v_page_trends'");
  const replaceSiteDaily = (path: string, comment?: string): Promise<void> =>
    withDb(path, async (db) => {
      await db.connection.run(
        "CREATE OR REPLACE VIEW v_site_daily AS SELECT 'marker' AS m, * FROM (SELECT 1 AS x) AS t",
      );
      if (comment !== undefined) await db.connection.run(`COMMENT ON VIEW v_site_daily IS '${comment}'`);
    });

  it('are not re-created by later runs while every view carries this version’s tag', async () => {
    const tmp = tempDir();
    const path = join(tmp.dir, 'views-current.duckdb');
    try {
      expect(await siteDaily(path)).toContain('v_site_daily');
      const tag = String(await tagOf(path));
      expect(tag).toMatch(/^mintlify-etl views sha256:[0-9a-f]{64}$/);
      // A marker in the view's text under this version's tag: a re-creation would replace it.
      await replaceSiteDaily(path, tag);
      expect(await siteDaily(path)).toContain("'marker'");
      expect(await siteDaily(path)).toContain("'marker'");
    } finally {
      tmp.cleanup();
    }
  });

  it('are all made again when one was replaced by hand, dropped, or carries another version', async () => {
    const tmp = tempDir();
    const path = join(tmp.dir, 'views-stale.duckdb');
    try {
      const tag = String(await tagOf(path));
      // Replaced by hand: a replaced view has no comment.
      await replaceSiteDaily(path);
      expect(await siteDaily(path)).not.toContain("'marker'");

      await replaceSiteDaily(path, tag);
      await withDb(path, (db) => db.connection.run('DROP VIEW v_page_trends'));
      expect(await siteDaily(path)).not.toContain("'marker'");
      expect(await tagOf(path)).toBe(tag);

      await replaceSiteDaily(path, tag);
      await withDb(path, (db) =>
        db.connection.run("COMMENT ON VIEW v_page_trends IS 'mintlify-etl views sha256:0000'"),
      );
      expect(await siteDaily(path)).not.toContain("'marker'");
      expect(await tagOf(path)).toBe(tag);
    } finally {
      tmp.cleanup();
    }
  });
});
