import { ViewsResponseSchema } from '../api/schemas.js';
import type { QualityWarning } from '../extract/quality.js';
import { fetchOffsetWindow, type PageRow, type Totals } from '../extract/window-pager.js';
import { prepareWindow, siteAndPageTables } from '../load/batch-loader.js';
import type { DayStream } from './types.js';

const VIEWS_TABLES = siteAndPageTables('site_views_daily', 'page_views_daily');

/**
 * Views are event counts, so they add up: total = human + ai for the site and every page, and
 * the pages sum to the site totals when every page came back. A break is loaded as the API sent
 * it and counted, like the visitor invariants.
 */
function viewChecks(site: Totals, rows: readonly PageRow[]): QualityWarning[] {
  const out: QualityWarning[] = [];
  const check = (t: Totals, where: string): void => {
    if (t.total !== t.human + t.ai)
      out.push({
        kind: 'views_total_not_human_plus_ai',
        detail: `${where}: total ${t.total} <> human ${t.human} + ai ${t.ai}`,
      });
  };
  check(site, 'site views');
  for (const r of rows) check(r, `path ${JSON.stringify(r.path)}`);
  return out;
}

/**
 * Content views per day (`/views`): site totals and per-page counts, human and AI, into
 * site_views_daily and page_views_daily. Offset paging, 250 rows a page, the same consistency
 * rules as visitors (identical totals on every page, no path twice).
 */
export const views: DayStream = {
  name: 'views',
  endpoint: 'views',
  tables: ['site_views_daily', 'page_views_daily'],
  pageSize: 250,
  async fetch(client, w, o) {
    const f = await fetchOffsetWindow(
      async (offset, limit, call) => {
        const page = await client.getAnalytics(
          {
            endpoint: 'views',
            projectId: w.projectId,
            path: 'views',
            query: { dateFrom: w.day, dateTo: w.dateTo, limit: String(limit), offset: String(offset) },
            schema: ViewsResponseSchema,
          },
          call,
        );
        return { totals: page.totals, rows: page.views, hasMore: page.hasMore };
      },
      w.projectId,
      w.day,
      { ...o, checks: viewChecks, ...(o.maxPages !== undefined ? { capPages: o.maxPages } : {}) },
    );
    return {
      pagesFetched: f.pagesFetched,
      attempts: f.attempts,
      rows: f.pages.length,
      warnings: f.warnings,
      notes: f.emptyPageWithMore ? ['a page said hasMore but had no rows; the day ends there'] : [],
      truncated: f.truncated,
      prepare: ({ runId, fetchedAt }) =>
        prepareWindow(
          {
            projectId: w.projectId,
            day: w.day,
            site: f.site,
            pages: f.pages,
            partial: w.partial,
            pagesFetched: f.pagesFetched,
            attempts: f.attempts,
            runId,
            fetchedAt,
            apiTotalsTotal: f.site.total,
            truncated: f.truncated,
          },
          'views',
          VIEWS_TABLES,
        ),
    };
  },
};
