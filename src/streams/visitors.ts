import { fetchWindow } from '../extract/window-pager.js';
import { prepareWindow, VISITOR_TABLES } from '../load/batch-loader.js';
import type { DayStream } from './types.js';

/**
 * Unique visitors per day (`/visitors`): site totals and per-page counts, human and AI, into
 * site_daily and page_daily. Offset paging, 250 rows a page. Unique visitors are not additive,
 * so a window is one day, never more.
 */
export const visitors: DayStream = {
  name: 'visitors',
  endpoint: 'visitors',
  tables: ['site_daily', 'page_daily'],
  pageSize: 250,
  async fetch(client, w, o) {
    const f = await fetchWindow(client, w.projectId, w.day, w.dateTo, {
      ...o,
      ...(o.maxPages !== undefined ? { capPages: o.maxPages } : {}),
    });
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
          'visitors',
          VISITOR_TABLES,
        ),
    };
  },
};
