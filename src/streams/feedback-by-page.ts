import { FeedbackByPageResponseSchema } from '../api/schemas.js';
import { DataShiftError } from '../errors.js';
import type { JsonTable, TableSpec } from '../load/table-spec.js';
import { jsonChunks } from '../load/window-data.js';
import type { StreamDefinition } from './types.js';

const PAGES: JsonTable = {
  table: 'feedback_page_daily',
  columns: [
    ['path', 'VARCHAR'],
    ['thumbs_up', 'BIGINT'],
    ['thumbs_down', 'BIGINT'],
    ['code', 'BIGINT'],
    ['total', 'BIGINT'],
  ],
};
const TABLES: TableSpec = { kind: 'json-days', tables: [PAGES] };
/** The endpoint's most: it has no cursor or offset, so a day's pages past the first 100 cannot be fetched. */
const LIMIT = 100;

/**
 * Feedback counts per page and day (`/feedback/by-page`, opt-in): thumbs up, thumbs down and
 * code-snippet feedback into feedback_page_daily. One request per day; a day with more than 100
 * pages is loaded with its first 100 and recorded truncated (the `feedback` stream, with every
 * entry, is the complete source). That cut is the endpoint's, so it is no reason to fetch a settled
 * day again.
 */
export const feedbackByPage: StreamDefinition = {
  name: 'feedback_by_page',
  endpoint: 'feedback.by-page',
  tables: [PAGES.table],
  pageSize: LIMIT,
  truncatedByEndpoint: true,
  async fetch(client, w, o) {
    const res = await client.getAnalytics(
      {
        endpoint: 'feedback.by-page',
        projectId: w.projectId,
        path: 'feedback/by-page',
        query: { dateFrom: w.day, dateTo: w.dateTo, limit: String(LIMIT) },
        schema: FeedbackByPageResponseSchema,
      },
      {
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.priority !== undefined ? { priority: o.priority } : {}),
      },
    );
    o.onPage?.();
    const rows = res.feedback;
    const paths = new Set(rows.map((r) => r.path));
    if (paths.size !== rows.length) {
      throw new DataShiftError(
        `${w.projectId} feedback_by_page ${w.day}: a path appears twice in one answer`,
        {
          projectId: w.projectId,
          day: w.day,
        },
      );
    }
    const truncated = res.hasMore;
    return {
      pagesFetched: 1,
      attempts: 1,
      rows: rows.length,
      warnings: [],
      notes: truncated ? ['more than 100 pages have feedback; the first 100 were loaded (truncated)'] : [],
      truncated,
      prepare: ({ runId, fetchedAt }) => ({
        w: { ...w, pagesFetched: 1, attempts: 1, runId, fetchedAt, apiTotalsTotal: null, truncated },
        rows: rows.length,
        spec: TABLES,
        data: {
          [PAGES.table]: jsonChunks(
            rows.map((r) => ({
              path: r.path,
              thumbs_up: r.thumbsUp,
              thumbs_down: r.thumbsDown,
              code: r.code,
              total: r.total,
            })),
            PAGES,
          ),
        },
      }),
    };
  },
};
