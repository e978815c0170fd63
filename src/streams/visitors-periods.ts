import { VisitorsResponseSchema } from '../api/schemas.js';
import { checkInvariants } from '../extract/quality.js';
import { ISO_WEEKS, MONTHS, planRanges, type Grid } from '../extract/range-plan.js';
import { fetchOffsetWindow } from '../extract/window-pager.js';
import { prepareWindow, sitePagesSpec } from '../load/site-page-rows.js';
import type { StreamDefinition } from './types.js';

interface PeriodSpec {
  readonly name: string;
  readonly grid: Grid;
  readonly siteTable: string;
  readonly pageTable: string;
}

/**
 * True unique visitors of a period (`/visitors` with the period as its window): the service
 * de-duplicates readers over the whole window, which no sum of daily uniques can. A period is
 * fetched once it is complete and settled (one request for the site's figure: the totals arrive
 * on every page, so `limit=1` is enough), the current one only with --include-today (partial,
 * fetched again until complete). --period-pages fetches every page's uniques too
 * (ceil(paths/250) requests a period), --max-pages capping it and recording the truncation.
 */
function periodStream(spec: PeriodSpec): StreamDefinition {
  const tables = sitePagesSpec(spec.siteTable, spec.pageTable, 'period_start');
  return {
    name: spec.name,
    endpoint: 'visitors',
    tables: [spec.siteTable, spec.pageTable],
    pageSize: 250,
    plan: (projectId, state, opts) =>
      planRanges(projectId, state, opts, { stream: spec.name, grid: spec.grid, kind: 'periods' }),
    async fetch(client, w, o) {
      const pages = o.periodPages === true;
      const f = await fetchOffsetWindow(
        async (offset, limit, call) => {
          const page = await client.getAnalytics(
            {
              endpoint: 'visitors',
              projectId: w.projectId,
              path: 'visitors',
              query: { dateFrom: w.day, dateTo: w.dateTo, limit: String(limit), offset: String(offset) },
              schema: VisitorsResponseSchema,
            },
            call,
          );
          return { totals: page.totals, rows: page.visitors, hasMore: page.hasMore };
        },
        w.projectId,
        w.day,
        {
          ...o,
          ...(pages
            ? o.maxPages !== undefined
              ? { capPages: o.maxPages }
              : {}
            : { limit: 1, capPages: 1, checks: (site) => checkInvariants(site, []) }),
        },
      );
      const rows = pages ? f.pages : [];
      const truncated = pages && f.truncated;
      return {
        pagesFetched: f.pagesFetched,
        attempts: f.attempts,
        rows: rows.length,
        warnings: f.warnings,
        notes: [],
        truncated,
        prepare: ({ runId, fetchedAt }) =>
          prepareWindow(
            {
              projectId: w.projectId,
              day: w.day,
              dateTo: w.dateTo,
              site: f.site,
              pages: rows,
              partial: w.partial,
              pagesFetched: f.pagesFetched,
              attempts: f.attempts,
              runId,
              fetchedAt,
              apiTotalsTotal: f.site.total,
              truncated,
            },
            spec.name,
            tables,
          ),
      };
    },
  };
}

/** ISO weeks [Monday, next Monday) into site_weekly (and page_weekly with --period-pages). */
export const visitorsWeekly = periodStream({
  name: 'visitors_weekly',
  grid: ISO_WEEKS,
  siteTable: 'site_weekly',
  pageTable: 'page_weekly',
});

/** Calendar months into site_monthly (and page_monthly with --period-pages). */
export const visitorsMonthly = periodStream({
  name: 'visitors_monthly',
  grid: MONTHS,
  siteTable: 'site_monthly',
  pageTable: 'page_monthly',
});
