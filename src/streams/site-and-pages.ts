import type { z } from 'zod';
import type { QualityWarning } from '../extract/quality.js';
import { fetchOffsetWindow, type PageRow, type Totals } from '../extract/window-pager.js';
import { prepareWindow, siteAndPageTables } from '../load/batch-loader.js';
import type { DayStream } from './types.js';

/** An offset-paged day endpoint of site totals and per-page (human, ai, total) counts. */
export interface SiteAndPagesSpec<F extends string> {
  readonly name: string;
  /** Path below /v1/analytics/{projectId}/ and the ledger's endpoint name. */
  readonly endpoint: string;
  readonly siteTable: string;
  readonly pageTable: string;
  /** The response field that holds the page rows (`visitors`, `views`). */
  readonly rowsField: F;
  readonly schema: z.ZodType<{ totals: Totals; hasMore: boolean } & Record<F, PageRow[]>>;
  /** Data-quality checks of a window (default: the unique-visitor invariants). */
  readonly checks?: (site: Totals, rows: readonly PageRow[]) => QualityWarning[];
}

/**
 * A day stream of a site row and page rows per day (visitors, views): offset paging, 250 rows a
 * page, identical totals on every page and no path twice (else the day is fetched again), each
 * day's rows replaced as a set.
 */
export function siteAndPagesStream<F extends string>(spec: SiteAndPagesSpec<F>): DayStream {
  const tables = siteAndPageTables(spec.siteTable, spec.pageTable);
  return {
    name: spec.name,
    endpoint: spec.endpoint,
    tables: [spec.siteTable, spec.pageTable],
    pageSize: 250,
    async fetch(client, w, o) {
      const f = await fetchOffsetWindow(
        async (offset, limit, call) => {
          const page = await client.getAnalytics(
            {
              endpoint: spec.endpoint,
              projectId: w.projectId,
              path: spec.endpoint,
              query: { dateFrom: w.day, dateTo: w.dateTo, limit: String(limit), offset: String(offset) },
              schema: spec.schema,
            },
            call,
          );
          return { totals: page.totals, rows: page[spec.rowsField], hasMore: page.hasMore };
        },
        w.projectId,
        w.day,
        {
          ...o,
          ...(spec.checks ? { checks: spec.checks } : {}),
          ...(o.maxPages !== undefined ? { capPages: o.maxPages } : {}),
        },
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
            spec.name,
            tables,
          ),
      };
    },
  };
}
