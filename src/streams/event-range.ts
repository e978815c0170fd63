import type { z } from 'zod';
import type { MintlifyClient } from '../api/client.js';
import { fetchCursorRange } from '../extract/cursor-range.js';
import type { QualityWarning } from '../extract/quality.js';
import type { EventTable, EventTableData, TableSpec } from '../load/table-spec.js';
import { eventChunks } from '../load/window-data.js';
import { largestField } from '../load/large-values.js';
import { timeOutOfRange } from '../extract/quality.js';
import { isoUtc, readApiTime } from '../util/time.js';
import type { StreamFetched, StreamFetchOptions, StreamWindow } from './types.js';

/** A cursor-paged range endpoint of keyed events (feedback, assistant) and the table it fills. */
export interface EventRangeSpec<T, R extends object> {
  readonly stream: string;
  /** Path below /v1/analytics/{projectId}/ and the ledger's endpoint name. */
  readonly endpoint: string;
  readonly limit: number;
  readonly schema: z.ZodType<{ nextCursor: string | null; hasMore: boolean }>;
  readonly rowsOf: (page: unknown) => readonly T[];
  readonly keyOf: (row: T) => string;
  /** The row's event time (ISO 8601) or null when the API gives none. */
  readonly timeOf: (row: T) => string | null;
  /** The API's name of that time (warnings name it). */
  readonly timeField: string;
  /** The row as the table's columns (JSON field names = column names). */
  readonly toRow: (row: T) => R;
  readonly table: EventTable;
}

/** Rows whose event time lies outside the window: loaded as the API sent them, and said. */
function outsideWindow<T>(
  spec: EventRangeSpec<T, object>,
  w: StreamWindow,
  rows: readonly T[],
): QualityWarning[] {
  const from = Date.parse(`${w.day}T00:00:00Z`);
  const to = Date.parse(`${w.dateTo}T00:00:00Z`);
  const outside = rows.filter((r) => {
    const t = spec.timeOf(r);
    if (t === null) return false;
    const ms = Date.parse(isoUtc(t) ?? t);
    return ms < from || ms >= to;
  });
  if (outside.length === 0) return [];
  return [
    {
      kind: 'event_outside_window',
      detail: `${outside.length} ${spec.stream} row(s) with a time outside [${w.day}, ${w.dateTo})`,
    },
  ];
}

/**
 * Fetches one range window of an event endpoint as one cursor sequence and hands its rows to the
 * event table's loader (the window's range replaced, rows upserted by key).
 */
export async function fetchEventRange<T, R extends object>(
  spec: EventRangeSpec<T, R>,
  tables: TableSpec,
  client: MintlifyClient,
  w: StreamWindow,
  o: StreamFetchOptions,
): Promise<StreamFetched> {
  const label = `${w.projectId} ${spec.stream} [${w.day}, ${w.dateTo})`;
  const f = await fetchCursorRange<T>({
    label,
    keyOf: spec.keyOf,
    maxPages: o.maxPages,
    onPage: o.onPage,
    page: async (cursor) => {
      const query: Record<string, string> = { dateFrom: w.day, dateTo: w.dateTo, limit: String(spec.limit) };
      if (cursor !== undefined) query['cursor'] = cursor;
      const page = await client.getAnalytics(
        { endpoint: spec.endpoint, projectId: w.projectId, path: spec.endpoint, query, schema: spec.schema },
        {
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.priority !== undefined ? { priority: o.priority } : {}),
        },
      );
      return { rows: spec.rowsOf(page), nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
  });
  // A page that said hasMore with no cursor left part of the range unseen: like a page cap, the
  // window is loaded without deleting what it did not reach, and never counts as settled.
  const truncated = f.truncated || f.endedWithoutCursor;
  // The event time is what places a row in a range: a row whose time is out of range is left out.
  const refused: string[] = [];
  const rows = f.rows.filter((r) => {
    const t = readApiTime(spec.timeOf(r));
    if ('iso' in t) return true;
    refused.push(t.outOfRange);
    return false;
  });
  return {
    pagesFetched: f.pages,
    attempts: f.attempts,
    rows: rows.length,
    warnings: [
      ...timeOutOfRange(spec.timeField, refused, 'left out'),
      ...outsideWindow(spec as EventRangeSpec<T, object>, w, rows),
      ...(f.repeated > 0
        ? [
            {
              kind: 'event_repeated' as const,
              detail: `${f.repeated} ${spec.stream} row(s) sent twice, identical: kept once`,
            },
          ]
        : []),
    ],
    notes: f.endedWithoutCursor
      ? ['a page said hasMore but gave no cursor; the window is loaded as truncated and fetched again']
      : [],
    truncated,
    prepare: ({ runId, fetchedAt }) => {
      const out = rows.map(spec.toRow);
      const { chunks, longest } = eventChunks(out);
      const data: EventTableData = { chunks };
      const big = rows[longest.index];
      return {
        w: {
          ...w,
          pagesFetched: f.pages,
          attempts: f.attempts,
          runId,
          fetchedAt,
          apiTotalsTotal: null,
          truncated,
        },
        rows: out.length,
        spec: tables,
        data,
        ...(big !== undefined
          ? { largest: largestField(out[longest.index] as object, longest.chars, spec.keyOf(big)) }
          : {}),
      };
    },
  };
}
