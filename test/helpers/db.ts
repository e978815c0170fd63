import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export function tempDbPath(name = 'analytics.duckdb'): string {
  return join(mkdtempSync(join(tmpdir(), 'mintlify-etl-')), name);
}

export interface SiteRow {
  project_id: string;
  day: string;
  human: number;
  ai: number;
  total: number;
}
export interface PageDbRow extends SiteRow {
  path: string;
}

/** Reads rows straight from the file with a fresh instance: what a user's SQL would see. */
export async function readRows<T>(dbPath: string, sql: string): Promise<T[]> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowObjectsJson() as unknown as T[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Site and page rows, normalised to plain numbers and sorted for comparison. */
export async function readData(dbPath: string): Promise<{ site: SiteRow[]; pages: PageDbRow[] }> {
  const site = await readRows<Record<string, unknown>>(
    dbPath,
    "SELECT project_id, strftime(day, '%Y-%m-%d') AS day, human, ai, total FROM site_daily ORDER BY project_id, day",
  );
  const pages = await readRows<Record<string, unknown>>(
    dbPath,
    "SELECT project_id, strftime(day, '%Y-%m-%d') AS day, path, human, ai, total FROM page_daily",
  );
  const num = (r: Record<string, unknown>) => ({
    ...r,
    human: Number(r['human']),
    ai: Number(r['ai']),
    total: Number(r['total']),
  });
  return {
    site: site.map(num) as unknown as SiteRow[],
    pages: (pages.map(num) as unknown as PageDbRow[]).sort(comparePages),
  };
}

export function comparePages(a: PageDbRow, b: PageDbRow): number {
  return a.project_id < b.project_id
    ? -1
    : a.project_id > b.project_id
      ? 1
      : a.day < b.day
        ? -1
        : a.day > b.day
          ? 1
          : a.path < b.path
            ? -1
            : a.path > b.path
              ? 1
              : 0;
}
