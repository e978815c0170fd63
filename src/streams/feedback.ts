import { FeedbackResponseSchema, type FeedbackItem } from '../api/schemas.js';
import { MONTHS, planRanges } from '../extract/range-plan.js';
import type { EventTable, TableSpec } from '../load/table-spec.js';
import { isoUtc } from '../util/time.js';
import { fetchEventRange, type EventRangeSpec } from './event-range.js';
import type { StreamDefinition } from './types.js';
import { FEEDBACK_LOOKBACK_DAYS } from './names.js';

const LIMIT = 100;

const TABLE: EventTable = {
  table: 'feedback',
  columns: [
    { name: 'id', type: 'VARCHAR' },
    { name: 'path', type: 'VARCHAR' },
    { name: 'source', type: 'VARCHAR' },
    { name: 'status', type: 'VARCHAR' },
    { name: 'comment', type: 'VARCHAR' },
    { name: 'helpful', type: 'BOOLEAN' },
    { name: 'contact', type: 'VARCHAR' },
    { name: 'code', type: 'VARCHAR' },
    { name: 'filename', type: 'VARCHAR' },
    { name: 'lang', type: 'VARCHAR' },
    { name: 'created_at', type: 'TIMESTAMPTZ' },
  ],
  key: ['id'],
  time: 'created_at',
  stamps: 'seen',
};
const TABLES: TableSpec = { kind: 'events', table: TABLE };

/** One table for the three shapes: the fields of the other shapes are NULL. */
function toRow(f: FeedbackItem): Record<string, unknown> {
  return {
    id: f.id,
    path: f.path,
    source: f.source,
    status: f.status,
    comment: f.comment,
    helpful: f.source === 'contextual' ? f.helpful : null,
    contact: f.source === 'contextual' ? f.contact : null,
    code: f.source === 'code_snippet' ? f.code : null,
    filename: f.source === 'code_snippet' ? f.filename : null,
    lang: f.source === 'code_snippet' ? f.lang : null,
    created_at: isoUtc(f.createdAt),
  };
}

const SPEC: EventRangeSpec<FeedbackItem, Record<string, unknown>> = {
  stream: 'feedback',
  endpoint: 'feedback',
  limit: LIMIT,
  schema: FeedbackResponseSchema,
  rowsOf: (page) => (page as { feedback: FeedbackItem[] }).feedback,
  keyOf: (f) => f.id,
  timeOf: (f) => f.createdAt,
  timeField: 'createdAt',
  toRow,
  table: TABLE,
};

/**
 * Reader feedback (`/feedback`), every source and status: windows are calendar months fetched as
 * one cursor sequence each (a day holds a handful of entries; a window per day would spend most
 * of the hour's budget on near-empty pages). The source and status filters are not used: a
 * month's unfiltered sequence is one request for what filters would split into several.
 */
export const feedback: StreamDefinition = {
  name: 'feedback',
  endpoint: 'feedback',
  tables: [TABLE.table],
  pageSize: LIMIT,
  plan: (projectId, state, opts) =>
    planRanges(projectId, state, opts, {
      stream: 'feedback',
      grid: MONTHS,
      kind: 'events',
      lookback: opts.lookbackByStream?.['feedback'] ?? FEEDBACK_LOOKBACK_DAYS,
      refreshAll: true,
    }),
  fetch: (client, w, o) => fetchEventRange(SPEC, TABLES, client, w, o),
};
