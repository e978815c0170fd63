import { BIGINT, BOOLEAN, DATE, TIMESTAMPTZ, VARCHAR, listValue, type DuckDBValue } from '@duckdb/node-api';
import { appendColumns, withAppender } from './append.js';
import { insertJsonChunks } from './json-tables.js';
import type { SitePageData, TableSpec } from '../table-spec.js';
import { toDateValue } from './sql.js';
import type { PreparedWindow } from '../prepared-window.js';
import type { DuckTableLoader } from './loader.js';

const SITE_COLUMNS = [VARCHAR, DATE, BIGINT, BIGINT, BIGINT, BOOLEAN, TIMESTAMPTZ, VARCHAR];

function dataOf(p: PreparedWindow): SitePageData {
  return p.data as SitePageData;
}

// The batch's (project, day) keys arrive as two bound lists zipped by unnest. The day range
// in front lets DuckDB skip row groups by their min/max before it joins on the keys.
function deleteKeysSql(table: string, day: string): string {
  return `DELETE FROM ${table} USING (SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::DATE[]) AS day) AS k
WHERE ${table}.${day} BETWEEN $3::DATE AND $4::DATE AND ${table}.project_id = k.project_id AND ${table}.${day} = k.day`;
}

/** DuckDB's loader of a `site-pages` spec: each window's site row and page rows replaced as a set. */
export function sitePagesLoader(spec: Extract<TableSpec, { kind: 'site-pages' }>): DuckTableLoader {
  const { siteTable, pageTable, dayColumn } = spec;
  const deletes = [deleteKeysSql(siteTable, dayColumn), deleteKeysSql(pageTable, dayColumn)];
  return {
    async replace(conn, batch, { loadedAt, onStep }) {
      const days = batch.map((b) => b.w.day).sort();
      const keys: DuckDBValue[] = [
        listValue(batch.map((b) => b.w.projectId)),
        listValue(batch.map((b) => toDateValue(b.w.day))),
        days[0] as string,
        days.at(-1) as string,
      ];
      for (const sql of deletes) await conn.run(sql, keys);
      await onStep('delete');
      await withAppender(conn, siteTable, (a) =>
        appendColumns(a, SITE_COLUMNS, batch.length, (s, e) => {
          const part = batch.slice(s, e);
          return [
            part.map((b) => b.w.projectId),
            part.map((b) => toDateValue(b.w.day)),
            part.map((b) => BigInt(dataOf(b).site.human)),
            part.map((b) => BigInt(dataOf(b).site.ai)),
            part.map((b) => BigInt(dataOf(b).site.total)),
            part.map((b) => b.w.partial),
            part.map(() => loadedAt),
            part.map((b) => b.w.runId),
          ];
        }),
      );
      await onStep('site');
      await insertJsonChunks(
        conn,
        { ...spec.pages, table: pageTable, dayColumn },
        batch.map((b) => ({ w: b.w, chunks: dataOf(b).chunks })),
      );
      await onStep('pages');
    },
  };
}
