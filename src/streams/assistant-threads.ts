import { AssistantThreadSchema, type AssistantThread } from '../api/schemas.js';
import { HttpStatusError } from '../errors.js';
import type { PlannedWindow } from '../extract/plan.js';
import { timeOutOfRange, type QualityWarning } from '../extract/quality.js';
import { eventChunks } from '../load/window-data.js';
import type { JsonTable, ThreadData, ThreadStatus } from '../load/table-spec.js';
import { largestField } from '../load/large-values.js';
import type { PreparedWindow } from '../load/prepared-window.js';
import type { TableSpec } from '../load/table-spec.js';
import { addDays } from '../util/day.js';
import { readApiTime } from '../util/time.js';
import { untrusted } from '../util/safe-text.js';
import type { Destination } from '../load/destination.js';
import { isoTime } from '../load/session.js';
import type { StreamDefinition, StreamWindow } from './types.js';

const MESSAGES: JsonTable = {
  table: 'assistant_messages',
  columns: [
    ['thread_id', 'VARCHAR'],
    ['message_id', 'VARCHAR'],
    ['seq', 'INTEGER'],
    ['role', 'VARCHAR'],
    ['content', 'VARCHAR'],
    ['created_at', 'TIMESTAMPTZ'],
  ],
};

/** Each thread replaced as a set: its messages, and its record of what was fetched when. */
const SPEC: TableSpec = { kind: 'threads', messages: MESSAGES };

/**
 * Threads not fetched yet, or whose turn count in assistant_turns grew since they were, newest
 * last turn first, at most `max`: a thread that did not change is never paid for twice.
 */
async function planThreads(
  db: Parameters<NonNullable<StreamDefinition['planAfterLoads']>>[0],
  projectId: string,
  opts: { maxItems: number; refresh: boolean },
): Promise<PlannedWindow[]> {
  if (opts.maxItems <= 0) return [];
  const rows = await db.session.rows(
    `SELECT t.thread_id, t.turns, CAST(t.last_ts AS DATE) AS day
     FROM (SELECT thread_id, count(*)::INTEGER AS turns, max(ts) AS last_ts
           FROM assistant_turns WHERE project_id = $1 GROUP BY thread_id) AS t
     LEFT JOIN assistant_threads AS a ON a.project_id = $1 AND a.thread_id = t.thread_id
     WHERE a.thread_id IS NULL OR t.turns > a.turns OR a.status = 'failed' OR $3::BOOLEAN
     ORDER BY coalesce(a.status = 'failed', false), t.last_ts DESC, t.thread_id
     LIMIT $2::INTEGER`,
    [projectId, opts.maxItems, opts.refresh],
  );
  return rows.map((r) => {
    const day = String(r['day']);
    return {
      projectId,
      stream: 'assistant_threads',
      day,
      dateTo: addDays(day, 1),
      reason: 'new',
      partial: false,
      item: { id: String(r['thread_id']), version: Number(r['turns']) },
    };
  });
}

/**
 * What a refused thread request means. Only a 404 that names the thread says the service no
 * longer has it; a 404 naming the project, or none (a wrong API URL), is the run's problem and
 * goes to the pipeline's 404 rules, and so does every other error.
 */
function refusal(e: unknown): ThreadStatus {
  if (e instanceof HttpStatusError) {
    const said = e.serverError ?? '';
    // "Thread … not found", not "Project … not found" nor a router's "No route for GET /…/threads/…".
    if (e.status === 404 && /thread/i.test(said) && !/project|route|\//i.test(said)) return 'gone';
    if (e.status === 400) return 'refused';
  }
  throw e;
}

/** An item that failed after every retry: recorded so the next runs ask the other threads first. */
async function recordFailure(db: Destination, w: StreamWindow, at: Date, runId: string): Promise<void> {
  const id = w.item?.id ?? '';
  const s = db.session;
  await s.transaction(async () => {
    await s.run(`DELETE FROM assistant_threads WHERE project_id = $1::VARCHAR AND thread_id = $2::VARCHAR`, [
      w.projectId,
      id,
    ]);
    await s.run(
      `INSERT INTO assistant_threads (project_id, thread_id, status, created_at, turns, messages, fetched_at, run_id)
     SELECT $1::VARCHAR, $2::VARCHAR, 'failed', CAST(NULL AS TIMESTAMPTZ), $3::INTEGER, count(*)::INTEGER, $4::TIMESTAMPTZ, $5::VARCHAR
     FROM assistant_messages WHERE project_id = $1::VARCHAR AND thread_id = $2::VARCHAR`,
      [w.projectId, id, w.item?.version ?? 0, isoTime(at), runId],
    );
  });
}

/** A row of assistant_messages (project_id aside), named like its columns. */
interface MessageRow {
  readonly thread_id: string;
  readonly message_id: string;
  readonly seq: number;
  readonly role: string;
  readonly content: string;
  readonly created_at: string | null;
}

/**
 * The transcript's messages as rows: one whose time is out of range is left out (created_at is
 * NOT NULL), the others keep their place in the thread (`seq` counts every message sent).
 */
function threadRows(
  threadId: string,
  thread: AssistantThread | undefined,
): { messages: MessageRow[]; warnings: QualityWarning[] } {
  const refused: string[] = [];
  const messages = (thread?.messages ?? []).flatMap((m, seq) => {
    const t = readApiTime(m.createdAt);
    if (!('iso' in t)) {
      refused.push(t.outOfRange);
      return [];
    }
    return [
      { thread_id: threadId, message_id: m.id, seq, role: m.role, content: m.content, created_at: t.iso },
    ];
  });
  const bad = thread === undefined ? undefined : readApiTime(thread.createdAt);
  return {
    messages,
    warnings: [
      ...timeOutOfRange('messages[].createdAt', refused, 'left out'),
      ...(bad !== undefined && 'outOfRange' in bad
        ? timeOutOfRange('createdAt', [bad.outOfRange], 'stored as NULL')
        : []),
    ],
  };
}

/** The thread's own time: an attribute of its record (nullable), NULL when out of range. */
function createdAt(thread: AssistantThread | undefined): string | null {
  const t = readApiTime(thread?.createdAt ?? null);
  return 'iso' in t ? t.iso : null;
}

function checks(t: AssistantThread, turns: number): QualityWarning[] {
  const asked = t.messages.filter((m) => m.role === 'user').length;
  // More user messages than loaded turns is a thread still going (its newest turns are today's,
  // loaded the next day); fewer means turns the transcript does not have.
  return asked >= turns
    ? []
    : [
        {
          kind: 'thread_turns_mismatch',
          detail: `thread ${untrusted(t.threadId)}: ${asked} user message(s), ${turns} turn(s)`,
        },
      ];
}

/**
 * Assistant transcripts (`/assistant/threads/{id}`), opt-in: one request per thread, planned from
 * the turns the `assistant` stream loaded (in the same run, after them). A thread the service no
 * longer has (404) is recorded gone, its messages removed, and not asked for again until it
 * gains turns.
 */
export const assistantThreads: StreamDefinition = {
  name: 'assistant_threads',
  endpoint: 'assistant.threads',
  tables: ['assistant_messages', 'assistant_threads'],
  pageSize: 1,
  plan: (projectId, _state, opts) => ({
    projectId,
    from: opts.today,
    to: opts.today,
    windows: [],
    skipped: [],
  }),
  planAfterLoads: planThreads,
  recordItemFailure: recordFailure,
  async fetch(client, w, o) {
    const item = w.item;
    if (item === undefined) throw new Error('assistant_threads windows are threads');
    let thread: AssistantThread | undefined;
    let status: ThreadStatus = 'loaded';
    try {
      thread = await client.getAnalytics(
        {
          endpoint: 'assistant.threads',
          projectId: w.projectId,
          path: `assistant/threads/${encodeURIComponent(item.id)}`,
          query: {},
          schema: AssistantThreadSchema,
        },
        {
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.priority !== undefined ? { priority: o.priority } : {}),
        },
      );
    } catch (e) {
      status = refusal(e);
    }
    o.onPage?.();
    const { messages, warnings } = threadRows(item.id, thread);
    const asked = (thread?.messages ?? []).filter((m) => m.role === 'user').length;
    const { chunks, longest } = eventChunks(messages);
    const big = messages[longest.index];
    const data: ThreadData = {
      status,
      turns: Math.max(item.version, asked),
      createdAt: createdAt(thread),
      messages: messages.length,
      chunks,
    };
    return {
      pagesFetched: 1,
      attempts: 1,
      rows: messages.length,
      warnings: thread ? [...checks(thread, item.version), ...warnings] : [],
      notes: thread
        ? []
        : [
            `thread ${untrusted(item.id)}: the service ${status === 'gone' ? 'has no such thread (404)' : 'refused its id (400)'}; recorded, asked again only if it gains turns`,
          ],
      truncated: false,
      prepare: ({ runId, fetchedAt }): PreparedWindow => ({
        w: { ...w, pagesFetched: 1, attempts: 1, runId, fetchedAt, apiTotalsTotal: null, truncated: false },
        rows: messages.length,
        spec: SPEC,
        data,
        ...(big !== undefined
          ? { largest: largestField(big, longest.chars, `${item.id}/${big.message_id}`) }
          : {}),
      }),
    };
  },
};
