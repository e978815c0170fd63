import type { Dataset } from '../../src/emulator/index.js';
import { comparePages, type PageDbRow, type SiteRow } from './db.js';

/** What the database must hold for these days, according to the emulator's ground truth. */
export function expectedRows(
  dataset: Dataset,
  days: readonly string[],
): { site: SiteRow[]; pages: PageDbRow[] } {
  const projectId = dataset.projectId;
  const site: SiteRow[] = [];
  const pages: PageDbRow[] = [];
  for (const day of [...days].sort()) {
    const t = dataset.site(day);
    site.push({ project_id: projectId, day, human: t.human, ai: t.ai, total: t.total });
    for (const r of dataset.pages(day))
      pages.push({ project_id: projectId, day, path: r.path, human: r.human, ai: r.ai, total: r.total });
  }
  return { site, pages: pages.sort(comparePages) };
}

/** The minimum number of requests for these days: one per 250 rows, at least one per day. */
export function minimumRequests(dataset: Dataset, days: readonly string[]): number {
  return days.reduce((n, d) => n + Math.max(1, Math.ceil(dataset.pages(d).length / 250)), 0);
}
