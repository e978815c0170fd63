import type { MintlifyClient } from '../../src/api/client.js';
import type { AssistantThread, AssistantTurn, FeedbackItem } from '../../src/api/schemas.js';
import { prepareWindow } from '../../src/load/site-page-rows.js';
import { jsonChunks } from '../../src/load/window-data.js';
import type { JsonTable, TableSpec } from '../../src/load/table-spec.js';
import type { PreparedWindow } from '../../src/load/prepared-window.js';
import type { WindowLoad } from '../../src/load/site-page-rows.js';
import { addDays } from '../../src/util/day.js';
import { assistant } from '../../src/streams/assistant.js';
import { assistantThreads } from '../../src/streams/assistant-threads.js';
import { feedback } from '../../src/streams/feedback.js';
import type { StreamDefinition, StreamWindow } from '../../src/streams/types.js';

/*
 * Prepared windows of every kind of table, built the way the streams build them (the event and
 * thread streams' own fetch against a fake client), with whatever values a test needs.
 */

/** A client that serves `rows` in `field` as cursor pages of `size`, and `thread` for any thread id. */
function fakeClient(
  field: string,
  rows: readonly object[],
  thread?: AssistantThread,
  size = 2,
): MintlifyClient {
  return {
    getAnalytics: (r: { query: Record<string, string> }) => {
      if (thread !== undefined) return Promise.resolve(thread);
      const at = Number(r.query['cursor'] ?? '0');
      const more = at + size < rows.length;
      return Promise.resolve({
        [field]: rows.slice(at, at + size),
        nextCursor: more ? String(at + size) : null,
        hasMore: more,
      });
    },
  } as unknown as MintlifyClient;
}

async function fetched(
  stream: StreamDefinition,
  w: StreamWindow,
  client: MintlifyClient,
  fetchedAt: string,
): Promise<PreparedWindow> {
  const f = await stream.fetch(client, w, {});
  return f.prepare({ runId: `run-${fetchedAt}`, fetchedAt: new Date(fetchedAt) });
}

export function visitorsWindow(
  projectId: string,
  day: string,
  pages: WindowLoad['pages'],
  fetchedAt = '2026-11-20T00:00:00Z',
  site?: WindowLoad['site'],
): PreparedWindow {
  const sum = (k: 'human' | 'ai' | 'total'): number => pages.reduce((n, p) => n + p[k], 0);
  return prepareWindow({
    projectId,
    day,
    site: site ?? { human: sum('human'), ai: sum('ai'), total: sum('total') },
    pages,
    partial: false,
    pagesFetched: 1,
    attempts: 1,
    runId: `run-${fetchedAt}`,
    fetchedAt: new Date(fetchedAt),
    apiTotalsTotal: site?.total ?? sum('total'),
  });
}

export interface FeedbackOptions {
  readonly month?: string;
  readonly fetchedAt?: string;
  readonly truncated?: boolean;
}

export function fb(id: string, createdAt: string | null, over: Partial<FeedbackItem> = {}): FeedbackItem {
  return {
    id,
    path: '/a',
    comment: 'c',
    createdAt,
    status: 'pending',
    source: 'contextual',
    helpful: true,
    contact: null,
    ...over,
  } as FeedbackItem;
}

export async function feedbackWindow(
  projectId: string,
  items: readonly FeedbackItem[],
  o: FeedbackOptions = {},
): Promise<PreparedWindow> {
  const day = o.month ?? '2026-11-01';
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const w: StreamWindow = {
    projectId,
    stream: 'feedback',
    day,
    dateTo: next.toISOString().slice(0, 10),
    partial: false,
  };
  const p = await fetched(feedback, w, fakeClient('feedback', items), o.fetchedAt ?? '2026-11-20T00:00:00Z');
  return o.truncated === true ? { ...p, w: { ...p.w, truncated: true } } : p;
}

export function turn(id: string, timestamp: string, over: Partial<AssistantTurn> = {}): AssistantTurn {
  return {
    id,
    timestamp,
    query: 'how?',
    response: 'so.',
    sources: [{ title: 'Intro', url: 'https://docs.example.com/intro' }],
    resolutionStatus: 'answered',
    queryCategory: null,
    pageUrl: null,
    ...over,
  };
}

export async function assistantWindow(
  projectId: string,
  turns: readonly AssistantTurn[],
  o: { week?: string; fetchedAt?: string; truncated?: boolean } = {},
): Promise<PreparedWindow> {
  const day = o.week ?? '2026-11-16';
  const w: StreamWindow = { projectId, stream: 'assistant', day, dateTo: addDays(day, 7), partial: false };
  const p = await fetched(
    assistant,
    w,
    fakeClient('conversations', turns),
    o.fetchedAt ?? '2026-11-20T00:00:00Z',
  );
  return o.truncated === true ? { ...p, w: { ...p.w, truncated: true } } : p;
}

export async function threadWindow(
  projectId: string,
  thread: AssistantThread,
  fetchedAt = '2026-11-20T00:00:00Z',
): Promise<PreparedWindow> {
  const day = thread.createdAt.slice(0, 10);
  const w: StreamWindow = {
    projectId,
    stream: 'assistant_threads',
    day,
    dateTo: addDays(day, 1),
    partial: false,
    item: { id: thread.threadId, version: 1 },
  };
  return fetched(assistantThreads, w, fakeClient('', [], thread), fetchedAt);
}

const TERMS: JsonTable = {
  table: 'search_daily',
  columns: [
    ['query', 'VARCHAR'],
    ['hits', 'BIGINT'],
    ['ctr', 'DOUBLE'],
    ['top_clicked_path', 'VARCHAR'],
    ['last_searched_at', 'TIMESTAMPTZ'],
  ],
};
const TOTALS: JsonTable = {
  table: 'search_totals_daily',
  columns: [
    ['total_searches', 'BIGINT'],
    ['terms', 'BIGINT'],
    ['truncated', 'BOOLEAN'],
  ],
};
const SEARCH_TABLES: TableSpec = { kind: 'json-days', tables: [TERMS, TOTALS] };

export interface SearchRowIn {
  readonly query: string;
  readonly hits: number;
  readonly ctr: number;
  readonly top_clicked_path: string | null;
  readonly last_searched_at: string | null;
}

/** A searches day as the searches stream prepares it (its tables, rows as JSON chunks). */
export function searchWindow(
  projectId: string,
  day: string,
  rows: readonly SearchRowIn[],
  fetchedAt = '2026-11-20T00:00:00Z',
): PreparedWindow {
  const hits = rows.reduce((n, r) => n + r.hits, 0);
  return {
    w: {
      projectId,
      stream: 'searches',
      day,
      dateTo: addDays(day, 1),
      partial: false,
      pagesFetched: 1,
      attempts: 1,
      runId: `run-${fetchedAt}`,
      fetchedAt: new Date(fetchedAt),
      apiTotalsTotal: hits,
      truncated: false,
    },
    rows: rows.length + 1,
    spec: SEARCH_TABLES,
    data: {
      search_daily: jsonChunks(rows, TERMS),
      search_totals_daily: jsonChunks(
        [{ total_searches: hits, terms: rows.length, truncated: false }],
        TOTALS,
      ),
    },
  };
}
