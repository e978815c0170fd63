import { CallerStatsResponseSchema } from '../api/schemas.js';
import type { JsonTable, TableSpec } from '../load/table-spec.js';
import { jsonChunks } from '../load/window-data.js';
import type { StreamDefinition } from './types.js';

const CALLERS: JsonTable = {
  table: 'assistant_callers_daily',
  columns: [
    ['web', 'BIGINT'],
    ['api', 'BIGINT'],
    ['other', 'BIGINT'],
    ['total', 'BIGINT'],
  ],
};
const TABLES: TableSpec = { kind: 'json-days', tables: [CALLERS] };

/**
 * Assistant queries per day by caller (`/assistant/caller-stats`): web, API and other callers,
 * one request per day, no paging, into assistant_callers_daily.
 */
export const callerStats: StreamDefinition = {
  name: 'caller_stats',
  endpoint: 'assistant.caller-stats',
  tables: [CALLERS.table],
  pageSize: 1,
  async fetch(client, w, o) {
    const stats = await client.getAnalytics(
      {
        endpoint: 'assistant.caller-stats',
        projectId: w.projectId,
        path: 'assistant/caller-stats',
        query: { dateFrom: w.day, dateTo: w.dateTo },
        schema: CallerStatsResponseSchema,
      },
      {
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.priority !== undefined ? { priority: o.priority } : {}),
      },
    );
    o.onPage?.();
    const warnings =
      stats.total === stats.web + stats.api + stats.other
        ? []
        : [
            {
              kind: 'callers_total_not_sum' as const,
              detail: `total ${stats.total} <> web ${stats.web} + api ${stats.api} + other ${stats.other}`,
            },
          ];
    return {
      pagesFetched: 1,
      attempts: 1,
      rows: 1,
      warnings,
      notes: [],
      truncated: false,
      prepare: ({ runId, fetchedAt }) => ({
        w: {
          ...w,
          pagesFetched: 1,
          attempts: 1,
          runId,
          fetchedAt,
          apiTotalsTotal: stats.total,
          truncated: false,
        },
        rows: 1,
        spec: TABLES,
        data: { [CALLERS.table]: jsonChunks([stats], CALLERS) },
      }),
    };
  },
};
