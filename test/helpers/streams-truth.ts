import type { Dataset } from '../../src/emulator/index.js';
import { readRows } from './db.js';

/** What each stream's tables must hold after a complete sync of these days, from the emulator's ground truth. */
export function truth(ds: Dataset, project: string, ds0: readonly string[]) {
  const sorted = [...ds0].sort();
  return {
    siteViews: sorted.map((day) => ({ project_id: project, day, ...ds.views(day).totals })),
    pageViews: sorted
      .flatMap((day) => ds.views(day).views.map((r) => ({ project_id: project, day, ...r })))
      .sort(byKey('day', 'path')),
    terms: sorted
      .flatMap((day) =>
        ds.searches(day).searches.map((s) => ({
          project_id: project,
          day,
          query: s.searchQuery,
          hits: s.hits,
          ctr: s.ctr,
          top_clicked_path: s.topClickedPage,
          last_searched_at: Date.parse(s.lastSearchedAt),
        })),
      )
      .sort(byKey('day', 'query')),
    searchTotals: sorted.map((day) => ({
      project_id: project,
      day,
      total_searches: ds.searches(day).totalSearches,
      terms: ds.searches(day).searches.length,
      truncated: false,
    })),
    callers: sorted.map((day) => ({ project_id: project, day, ...ds.callerStats(day) })),
  };
}

export function byKey(...keys: string[]) {
  return (a: Record<string, unknown>, b: Record<string, unknown>): number => {
    for (const k of keys) {
      const x = String(a[k]);
      const y = String(b[k]);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

export async function tables(db: string) {
  // Counts are BIGINT in the tables; INT here only so that they read back as JSON numbers.
  const n = (c: string): string => `${c}::INT AS ${c}`;
  const counts = (...cs: string[]): string => cs.map(n).join(', ');
  return {
    siteViews: await readRows(
      db,
      `SELECT project_id, day, ${counts('human', 'ai', 'total')} FROM site_views_daily ORDER BY day`,
    ),
    pageViews: await readRows(
      db,
      `SELECT project_id, day, path, ${counts('human', 'ai', 'total')} FROM page_views_daily`,
    ),
    terms: await readRows(
      db,
      `SELECT project_id, day, query, ${n('hits')}, ctr, top_clicked_path,
              epoch_ms(last_searched_at)::DOUBLE AS last_searched_at FROM search_daily`,
    ),
    searchTotals: await readRows(
      db,
      `SELECT project_id, day, ${counts('total_searches', 'terms')}, truncated FROM search_totals_daily ORDER BY day`,
    ),
    callers: await readRows(
      db,
      `SELECT project_id, day, ${counts('web', 'api', 'other', 'total')} FROM assistant_callers_daily ORDER BY day`,
    ),
  };
}

export function sorted(t: Awaited<ReturnType<typeof tables>>) {
  return {
    ...t,
    pageViews: [...(t.pageViews as Record<string, unknown>[])].sort(byKey('day', 'path')),
    terms: [...(t.terms as Record<string, unknown>[])].sort(byKey('day', 'query')),
  };
}

/** Requests a clean fetch of these days needs at least: offset streams ceil(rows/250), searches ceil(terms/100), caller stats 1. */
export function minimum(ds: Dataset, ds0: readonly string[]): number {
  return ds0.reduce(
    (n, d) =>
      n +
      Math.max(1, Math.ceil(ds.pages(d).length / 250)) +
      Math.max(1, Math.ceil(ds.views(d).views.length / 250)) +
      Math.max(1, Math.ceil(ds.searches(d).searches.length / 100)) +
      1,
    0,
  );
}
