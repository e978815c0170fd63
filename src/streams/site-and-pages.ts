import type { z } from 'zod';
import { invariantChecks, type WindowChecks } from '../extract/quality.js';
import { streamOffsetWindow, type PassSink } from '../extract/window-pager.js';
import type { PageRow, Totals } from '../extract/visitor-counts.js';
import { sitePagesSpec, sitePageRows, type SitePageRows } from '../load/site-page-rows.js';
import type { StreamDefinition, StreamWindow } from './types.js';

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
  /** Data-quality checks of a window, fed page by page (default: the unique-visitor invariants). */
  readonly checks?: () => WindowChecks;
}

/**
 * A day stream of a site row and page rows per day (visitors, views): offset paging, 250 rows a
 * page, identical totals on every page and no path twice (else the day is fetched again), each
 * day's rows replaced as a set.
 */
export function siteAndPagesStream<F extends string>(spec: SiteAndPagesSpec<F>): StreamDefinition {
  const tables = sitePagesSpec(spec.siteTable, spec.pageTable);
  return {
    name: spec.name,
    endpoint: spec.endpoint,
    tables: [spec.siteTable, spec.pageTable],
    pageSize: 250,
    async fetch(client, w, o) {
      const f = await streamOffsetWindow(
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
        () => checkedRows(w, spec.checks ?? invariantChecks),
        { ...o, ...(o.maxPages !== undefined ? { capPages: o.maxPages } : {}) },
      );
      const rows = f.sink.rows.seal();
      return {
        pagesFetched: f.pagesFetched,
        attempts: f.attempts,
        rows: rows.rows,
        warnings: f.sink.checks.warnings(f.site),
        notes: f.emptyPageWithMore ? ['a page said hasMore but had no rows; the day ends there'] : [],
        truncated: f.truncated,
        prepare: ({ runId, fetchedAt }) =>
          rows.prepare(
            {
              projectId: w.projectId,
              day: w.day,
              site: f.site,
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

/** One pass's sink: each page checked and turned into load text as it arrives, never kept as rows. */
function checkedRows(
  w: StreamWindow,
  newChecks: () => WindowChecks,
): PassSink & { readonly rows: SitePageRows; readonly checks: WindowChecks } {
  const rows = sitePageRows(w);
  const checks = newChecks();
  return {
    rows,
    checks,
    add(page) {
      const shift = rows.add(page);
      if (shift === undefined) checks.add(page);
      return shift;
    },
  };
}
