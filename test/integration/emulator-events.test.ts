import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AnalyticsErrorSchema } from '../../src/api/schemas.js';
import type { Emulator, EmulatorOptions, FeedbackFilter } from '../../src/emulator/index.js';
import { addDays, startEmulator } from '../../src/emulator/index.js';
import {
  AssistantConversationsResponseSchema,
  AssistantThreadResponseSchema,
  feedbackShape,
  FeedbackResponseSchema,
  ULID_RE,
} from '../helpers/event-schemas.js';

const TODAY = '2025-03-15';
const BASE: EmulatorOptions = { seed: 11, days: 30, paths: 300, today: TODAY };

type Query = Record<string, string | number>;
type Feedback = z.infer<typeof FeedbackResponseSchema>;
type Turn = z.infer<typeof AssistantConversationsResponseSchema>['conversations'][number];

interface Reply {
  status: number;
  body: unknown;
}

async function get(e: Emulator, path: string, query: Query = {}, project = e.projectId): Promise<Reply> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await fetch(`${e.url}/v1/analytics/${project}/${path}${qs ? `?${qs}` : ''}`, {
    headers: { authorization: `Bearer ${e.apiKey}` },
  });
  return { status: res.status, body: JSON.parse(await res.text()) as unknown };
}

async function ok<T>(e: Emulator, path: string, schema: z.ZodType<T>, query: Query = {}): Promise<T> {
  const r = await get(e, path, query);
  expect(r.status).toBe(200);
  return schema.parse(r.body);
}

function errorBody(r: Reply) {
  return AnalyticsErrorSchema.parse(r.body);
}

/** Every page of GET /feedback by cursor, checking hasMore and nextCursor on each. */
async function allFeedback(e: Emulator, query: Query) {
  const items: Feedback['feedback'] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Feedback = await ok(e, 'feedback', FeedbackResponseSchema, {
      ...query,
      ...(cursor !== null ? { cursor } : {}),
    });
    items.push(...page.feedback);
    sizes.push(page.feedback.length);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    cursor = page.nextCursor;
    if (cursor === null) return { items, sizes };
  }
}

/** Every page of GET /assistant by ULID cursor. */
async function allTurns(e: Emulator, query: Query) {
  const turns: Turn[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: z.infer<typeof AssistantConversationsResponseSchema> = await ok(
      e,
      'assistant',
      AssistantConversationsResponseSchema,
      { ...query, ...(cursor !== null ? { cursor } : {}) },
    );
    turns.push(...page.conversations);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    cursor = page.nextCursor;
    if (cursor === null) return { turns, cursors };
    cursors.push(cursor);
  }
}

const key = (t: Turn) => `${t.id}|${t.timestamp}`;
const canonical = (turns: Turn[]) =>
  [...turns].sort((a, b) => (a.id !== b.id ? (a.id < b.id ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1));

describe('emulator: GET /feedback', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it.each([1, 7, 50, 100])(
    'pages a week by cursor at limit %i to exactly the ground truth, no item twice',
    async (limit) => {
      const range = { dateFrom: e.dataset.days[10]!, dateTo: e.dataset.days[17]! };
      const { items, sizes } = await allFeedback(e, { ...range, limit });
      expect(items).toEqual(e.dataset.feedbackEvents(range.dateFrom, range.dateTo));
      expect(new Set(items.map((f) => f.id)).size).toBe(items.length);
      expect(sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
      expect(sizes.at(-1)).toBeGreaterThan(0);
    },
  );

  it('serves 50 items by default, each in exactly one OpenAPI shape', async () => {
    const range = { dateFrom: e.dataset.days[0]!, dateTo: addDays(TODAY, 1) };
    const page = await ok(e, 'feedback', FeedbackResponseSchema, range);
    expect(page.feedback).toHaveLength(50);
    expect(page.hasMore).toBe(true);
    const { items } = await allFeedback(e, { ...range, limit: 100 });
    const shapeOf = { contextual: 0, code_snippet: 1, agent: 2, thumbs_only: 2 } as const;
    for (const f of items) expect(feedbackShape(f)).toBe(shapeOf[f.source]);
  });

  it('ends with nextCursor null and hasMore false on the last page, also when it is the first', async () => {
    const day = e.dataset.days[12]!;
    const page = await ok(e, 'feedback', FeedbackResponseSchema, {
      dateFrom: day,
      dateTo: addDays(day, 1),
      limit: 100,
    });
    expect(page.nextCursor).toBeNull();
    expect(page.hasMore).toBe(false);
    expect(page.feedback).toEqual(e.dataset.feedbackEvents(day, addDays(day, 1)));
  });

  it('serves the undated items after the dated ones in every range, the empty day and days before the data too', async () => {
    const undated = e.dataset.feedbackUndated();
    const empty = e.dataset.streamEdgeDays.empty;
    for (const range of [
      { dateFrom: empty, dateTo: addDays(empty, 1) },
      { dateFrom: '2020-01-01', dateTo: '2020-02-01' },
      { dateFrom: e.dataset.days[3]!, dateTo: e.dataset.days[5]! },
    ]) {
      const { items } = await allFeedback(e, { ...range, limit: 100 });
      expect(items.slice(-undated.length)).toEqual(undated);
      expect(items.slice(0, -undated.length).every((f) => f.createdAt !== null)).toBe(true);
    }
    const onEmpty = await ok(e, 'feedback', FeedbackResponseSchema, {
      dateFrom: empty,
      dateTo: addDays(empty, 1),
    });
    expect(onEmpty).toEqual({ feedback: undated, nextCursor: null, hasMore: false });
  });

  it('filters by source and by a list of statuses, paging the filtered items', async () => {
    const range = { dateFrom: e.dataset.days[0]!, dateTo: e.dataset.days[29]! };
    const filters: FeedbackFilter[] = [
      { source: 'contextual' },
      { source: 'code_snippet', status: ['pending', 'resolved'] },
      { status: ['in_progress'] },
    ];
    for (const filter of filters) {
      const query: Query = { ...range, limit: 40 };
      if (filter.source) query['source'] = filter.source;
      if (filter.status) query['status'] = filter.status.join(',');
      const { items } = await allFeedback(e, query);
      expect(items).toEqual(e.dataset.feedbackEvents(range.dateFrom, range.dateTo, filter));
      expect(items.length).toBeGreaterThan(0);
    }
  });

  it('agrees with /feedback/by-page: the items of a day count the same per path', async () => {
    const day = e.dataset.days[20]!;
    const range = { dateFrom: day, dateTo: addDays(day, 1) };
    const { items } = await allFeedback(e, { ...range, limit: 100 });
    const counts = new Map<string, number>();
    for (const f of items) if (f.createdAt !== null) counts.set(f.path, (counts.get(f.path) ?? 0) + 1);
    const byPage = (await get(e, 'feedback/by-page', { ...range, limit: 100 })).body as {
      feedback: { path: string; total: number }[];
    };
    expect(counts).toEqual(new Map(byPage.feedback.map((r) => [r.path, r.total])));
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ source: 'email' }, 'source'],
    [{ status: 'pending,closed' }, 'status'],
    [{ status: '' }, 'status'],
    [{ dateFrom: 'yesterday' }, 'dateFrom'],
  ] as [Query, string][])('answers %o with a 400 naming %s', async (query, name) => {
    const r = await get(e, 'feedback', query);
    expect(r.status).toBe(400);
    expect(errorBody(r).details?.[0]?.message).toContain(name);
  });

  it('refuses a garbage cursor, a tampered one, and one minted for another range or filter', async () => {
    const range = { dateFrom: e.dataset.days[10]!, dateTo: e.dataset.days[17]! };
    const cursor = (await ok(e, 'feedback', FeedbackResponseSchema, { ...range, limit: 5 })).nextCursor!;
    const tampered = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    for (const query of [
      { ...range, cursor: 'not-a-cursor' },
      { ...range, cursor: tampered },
      { ...range, dateTo: e.dataset.days[18]!, cursor },
      { ...range, source: 'agent', cursor },
      { ...range, status: 'pending', cursor },
    ]) {
      const r = await get(e, 'feedback', query);
      expect(r.status).toBe(400);
      expect(errorBody(r).error).toBe('Invalid cursor');
    }
    expect((await get(e, 'feedback', { ...range, cursor })).status).toBe(200);
    const other = await startEmulator({ ...BASE, seed: 12 });
    try {
      const foreign = (await ok(other, 'feedback', FeedbackResponseSchema, { ...range, limit: 1 }))
        .nextCursor!;
      expect((await get(e, 'feedback', { ...range, cursor: foreign })).status).toBe(400);
    } finally {
      await other.close();
    }
  });
});

describe('emulator: GET /assistant', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it.each([1, 13, 100, 1000])(
    'pages a week by ULID cursor at limit %i to exactly the turns of the truth, none twice',
    async (limit) => {
      const range = { dateFrom: e.dataset.days[10]!, dateTo: e.dataset.days[17]! };
      const { turns, cursors } = await allTurns(e, { ...range, limit });
      expect(canonical(turns)).toEqual(e.dataset.assistantTurns(range.dateFrom, range.dateTo));
      expect(new Set(turns.map(key)).size).toBe(turns.length);
      expect(cursors.every((c) => ULID_RE.test(c))).toBe(true);
      expect(cursors.length).toBe(Math.ceil(turns.length / limit) - 1);
    },
  );

  it('serves 100 turns by default and the whole range at limit 1000', async () => {
    const range = { dateFrom: e.dataset.days[0]!, dateTo: addDays(TODAY, 1) };
    const truth = e.dataset.assistantTurns(range.dateFrom, range.dateTo);
    expect(truth.length).toBeGreaterThan(100);
    const first = await ok(e, 'assistant', AssistantConversationsResponseSchema, range);
    expect(first.conversations).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    const all = await ok(e, 'assistant', AssistantConversationsResponseSchema, { ...range, limit: 1000 });
    expect(canonical(all.conversations)).toEqual(truth);
    expect(all).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it('orders nothing: two sequences see two orders, each complete with no row repeated', async () => {
    const range = { dateFrom: e.dataset.days[5]!, dateTo: e.dataset.days[12]! };
    const a = await allTurns(e, { ...range, limit: 17 });
    const b = await allTurns(e, { ...range, limit: 17 });
    expect(a.turns.map(key)).not.toEqual(b.turns.map(key));
    expect(canonical(a.turns)).toEqual(canonical(b.turns));
    expect(new Set(a.turns.map(key)).size).toBe(a.turns.length);
    // A cursor replays its own sequence's order, even after another sequence started.
    const again = await ok(e, 'assistant', AssistantConversationsResponseSchema, {
      ...range,
      limit: 17,
      cursor: a.cursors[0]!,
    });
    expect(again.conversations).toEqual(a.turns.slice(17, 34));
  });

  it('serves no turn on the empty day', async () => {
    const empty = e.dataset.streamEdgeDays.empty;
    expect(
      await ok(e, 'assistant', AssistantConversationsResponseSchema, {
        dateFrom: empty,
        dateTo: addDays(empty, 1),
      }),
    ).toEqual({ conversations: [], nextCursor: null, hasMore: false });
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 1001 }, 'limit'],
    [{ cursor: 'abc' }, 'cursor'],
    [{ cursor: '81ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'cursor'],
    [{ cursor: '01ARZ3NDEKTSV4RRFFQ69G5FAI' }, 'cursor'],
    [{ cursor: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'cursor'],
  ] as [Query, string][])('answers %o with a 400 naming %s', async (query, name) => {
    const r = await get(e, 'assistant', query);
    expect(r.status).toBe(400);
    expect(errorBody(r).details?.[0]?.message).toContain(name);
  });

  it('refuses a cursor minted for another range', async () => {
    const range = { dateFrom: e.dataset.days[10]!, dateTo: e.dataset.days[17]! };
    const cursor = (await ok(e, 'assistant', AssistantConversationsResponseSchema, { ...range, limit: 3 }))
      .nextCursor!;
    const r = await get(e, 'assistant', { ...range, dateFrom: e.dataset.days[9]!, cursor });
    expect(r.status).toBe(400);
    expect(errorBody(r).error).toBe('Invalid cursor');
  });
});

describe('emulator: GET /assistant/threads/{threadId}', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it('answers each thread of a day with its turns as user and assistant messages', async () => {
    const day = e.dataset.days[8]!;
    const turns = e.dataset.assistantTurns(addDays(day, -1), addDays(day, 2));
    const ids = e.dataset.assistantThreadIds(day, addDays(day, 1));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const body = await ok(e, `assistant/threads/${id}`, AssistantThreadResponseSchema);
      expect(body).toEqual(e.dataset.assistantThread(id));
      const mine = turns.filter((t) => t.id === id);
      expect(body.messages.filter((m) => m.role === 'user').map((m) => [m.content, m.createdAt])).toEqual(
        mine.map((t) => [t.query, t.timestamp]),
      );
      expect(body.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(
        mine.map((t) => t.response),
      );
    }
  });

  it('answers 400 for a thread id that is not a ULID and 404 for one it does not know', async () => {
    for (const bad of ['abc', '81ARZ3NDEKTSV4RRFFQ69G5FAV', '01ARZ3NDEKTSV4RRFFQ69G5FA']) {
      const r = await get(e, `assistant/threads/${bad}`);
      expect(r.status).toBe(400);
      expect(errorBody(r).details?.[0]?.message).toContain('threadId');
    }
    const missing = await get(e, 'assistant/threads/01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(missing.status).toBe(404);
    expect(errorBody(missing).error).toContain('01ARZ3NDEKTSV4RRFFQ69G5FAV');
  });

  it('answers 404 for an unknown project before looking at the thread', async () => {
    const r = await get(e, 'assistant/threads/abc', {}, 'proj_other');
    expect(r.status).toBe(404);
    expect(errorBody(r).error).toContain('proj_other');
  });
});

describe('emulator: changes between two syncs (test hooks)', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it('shows triaged feedback with its new status in /feedback, its status filter and /feedback/by-page', async () => {
    const range = { dateFrom: e.dataset.days[14]!, dateTo: e.dataset.days[16]! };
    const byPage = async () =>
      (
        (await get(e, 'feedback/by-page', { ...range, limit: 100, status: 'dismissed' })).body as {
          feedback: { total: number }[];
        }
      ).feedback.reduce((s, r) => s + r.total, 0);
    const before = await byPage();
    const ids = e.triageFeedback({ ...range, count: 4, to: 'dismissed' });
    expect(ids).toHaveLength(4);
    const { items } = await allFeedback(e, { ...range, limit: 100 });
    expect(items).toEqual(e.dataset.feedbackEvents(range.dateFrom, range.dateTo));
    for (const id of ids) expect(items.find((f) => f.id === id)?.status).toBe('dismissed');
    const dismissed = await allFeedback(e, { ...range, status: 'dismissed', limit: 100 });
    expect(dismissed.items.map((f) => f.id)).toEqual(expect.arrayContaining(ids));
    expect(await byPage()).toBe(before + 4);
    e.setFeedbackStatus([ids[0]!], 'pending');
    const after = await allFeedback(e, { ...range, status: 'pending', limit: 100 });
    expect(after.items.map((f) => f.id)).toContain(ids[0]);
  });

  it('shows an appended turn in /assistant for its day and in the thread', async () => {
    const day = e.dataset.days[20]!;
    const id = e.dataset.assistantThreadIds(day, addDays(day, 1))[0]!;
    const before = await ok(e, `assistant/threads/${id}`, AssistantThreadResponseSchema);
    const turn = e.appendAssistantTurn(id, `${TODAY}T02:03:04.005Z`);
    const after = await ok(e, `assistant/threads/${id}`, AssistantThreadResponseSchema);
    expect(after.messages).toHaveLength(before.messages.length + 2);
    expect(after).toEqual(e.dataset.assistantThread(id));
    const { turns } = await allTurns(e, { dateFrom: TODAY, dateTo: addDays(TODAY, 1), limit: 1000 });
    expect(turns).toContainEqual(turn);
    expect(canonical(turns)).toEqual(e.dataset.assistantTurns(TODAY, addDays(TODAY, 1)));
  });
});

describe('emulator: the event endpoints share the rate limit and the faults', () => {
  let e: Emulator | undefined;
  afterEach(async () => {
    await e?.close();
    e = undefined;
  });

  it('counts /feedback, /assistant and the threads against the analytics window', async () => {
    e = await startEmulator({ ...BASE, rateLimit: '3/1h' });
    const id = e.dataset.assistantThreadIds(e.dataset.days[3]!, e.dataset.days[4]!)[0]!;
    const statuses = [];
    for (const path of ['feedback', 'assistant', `assistant/threads/${id}`, 'visitors', 'feedback']) {
      statuses.push((await get(e, path, path.includes('threads') ? {} : { limit: 1 })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Parameters are checked before the limit: a bad request is a 400, not a 429, and spends nothing.
    expect((await get(e, 'assistant', { cursor: 'x' })).status).toBe(400);
    expect((await get(e, 'assistant/threads/x')).status).toBe(400);
  });

  it('injects faults into the three endpoints too, never more than 3 in a row', async () => {
    e = await startEmulator({ ...BASE, faults: 1, slowMs: 1 });
    const id = e.dataset.assistantThreadIds(e.dataset.days[3]!, e.dataset.days[4]!)[0]!;
    const schemas = [
      ['feedback?limit=', FeedbackResponseSchema],
      ['assistant?limit=', AssistantConversationsResponseSchema],
      [`assistant/threads/${id}?x=`, AssistantThreadResponseSchema],
    ] as const;
    for (const [path, schema] of schemas) {
      for (let i = 1; i <= 4; i++) {
        let failures = 0;
        for (;;) {
          const res = await fetch(`${e.url}/v1/analytics/${e.projectId}/${path}${i}`, {
            headers: { authorization: `Bearer ${e.apiKey}` },
          });
          const text = await res.text().catch(() => undefined);
          if (res.status === 200 && text !== undefined) {
            schema.parse(JSON.parse(text));
            break;
          }
          failures++;
          expect(failures).toBeLessThanOrEqual(3);
        }
      }
    }
    expect(e.stats.faults).toBeGreaterThan(0);
  });
});

describe('emulator: the event endpoints are deterministic', () => {
  it('answers the same to two emulators of one seed: feedback, every assistant page and threads', async () => {
    const [a, b] = await Promise.all([startEmulator(BASE), startEmulator(BASE)]);
    try {
      const range = { dateFrom: a.dataset.days[2]!, dateTo: a.dataset.days[9]! };
      expect((await allFeedback(a, { ...range, limit: 30 })).items).toEqual(
        (await allFeedback(b, { ...range, limit: 30 })).items,
      );
      const ta = await allTurns(a, { ...range, limit: 25 });
      const tb = await allTurns(b, { ...range, limit: 25 });
      expect(ta).toEqual(tb);
      const id = ta.turns[0]!.id;
      expect(await ok(a, `assistant/threads/${id}`, AssistantThreadResponseSchema)).toEqual(
        await ok(b, `assistant/threads/${id}`, AssistantThreadResponseSchema),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
