import { AssistantResponseSchema, type AssistantTurn } from '../api/schemas.js';
import { ISO_WEEKS, planRanges } from '../extract/range-plan.js';
import type { EventTable, TableSpec } from '../load/table-spec.js';
import { isoUtc } from '../util/time.js';
import { fetchEventRange, type EventRangeSpec } from './event-range.js';
import type { StreamDefinition } from './types.js';

const LIMIT = 1000;

const TABLE: EventTable = {
  table: 'assistant_turns',
  columns: [
    { name: 'thread_id', type: 'VARCHAR' },
    { name: 'ts', type: 'TIMESTAMPTZ' },
    { name: 'query', type: 'VARCHAR' },
    { name: 'response', type: 'VARCHAR' },
    { name: 'response_type', type: 'VARCHAR' },
    { name: 'resolution_status', type: 'VARCHAR' },
    { name: 'query_category', type: 'VARCHAR' },
    { name: 'page_url', type: 'VARCHAR' },
    {
      name: 'sources',
      type: 'STRUCT(title VARCHAR, url VARCHAR)[]',
      json: '[{"title":"VARCHAR","url":"VARCHAR"}]',
    },
  ],
  key: ['thread_id', 'ts'],
  time: 'ts',
  stamps: 'loaded',
};
const TABLES: TableSpec = { kind: 'events', table: TABLE };

function toRow(t: AssistantTurn): Record<string, unknown> {
  return {
    thread_id: t.id,
    ts: isoUtc(t.timestamp),
    query: t.query,
    response: t.response,
    // The API's documented default when the field is left out.
    response_type: t.responseType ?? 'answer',
    resolution_status: t.resolutionStatus,
    query_category: t.queryCategory,
    page_url: t.pageUrl,
    sources: t.sources.map((s) => ({ title: s.title, url: s.url })),
  };
}

const SPEC: EventRangeSpec<AssistantTurn, Record<string, unknown>> = {
  stream: 'assistant',
  endpoint: 'assistant',
  limit: LIMIT,
  schema: AssistantResponseSchema,
  rowsOf: (page) => (page as { conversations: AssistantTurn[] }).conversations,
  // `id` is the thread's and repeats on every turn; a turn is its thread and its time.
  keyOf: (t) => `${t.id}\u0000${isoUtc(t.timestamp) ?? t.timestamp}`,
  timeOf: (t) => t.timestamp,
  timeField: 'timestamp',
  toRow,
  table: TABLE,
};

/**
 * Assistant conversations (`/assistant`), one row per user turn: windows are ISO weeks fetched as
 * one cursor sequence each (1000 turns a page). The API does not order its rows, so nothing
 * depends on their order: a turn is keyed by (thread, time), and a window counts as loaded only
 * when its whole sequence is.
 */
export const assistant: StreamDefinition = {
  name: 'assistant',
  endpoint: 'assistant',
  tables: [TABLE.table],
  pageSize: LIMIT,
  plan: (projectId, state, opts) =>
    planRanges(projectId, state, opts, { stream: 'assistant', grid: ISO_WEEKS, kind: 'events' }),
  fetch: (client, w, o) => fetchEventRange(SPEC, TABLES, client, w, o),
};
