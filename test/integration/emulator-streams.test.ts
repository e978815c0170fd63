import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AnalyticsErrorSchema,
  CallerStatsResponseSchema,
  FeedbackByPageResponseSchema,
  SearchesResponseSchema,
  ViewsResponseSchema,
  VisitorsResponseSchema,
} from '../../src/api/schemas.js';
import type { SearchRow, ViewRow } from '../../src/api/schemas.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { addDays, ODD_QUERIES, startEmulator } from '../../src/emulator/index.js';

const TODAY = '2025-03-15';
const BASE: EmulatorOptions = { seed: 11, days: 30, paths: 600, today: TODAY };

const ENDPOINTS = {
  visitors: 'visitors',
  views: 'views',
  searches: 'searches',
  callerStats: 'assistant/caller-stats',
  feedback: 'feedback/by-page',
} as const;
type Endpoint = keyof typeof ENDPOINTS;

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

type Query = Record<string, string | number>;

async function get(
  e: Emulator,
  endpoint: Endpoint,
  query: Query = {},
  project = e.projectId,
): Promise<Reply> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await fetch(`${e.url}/v1/analytics/${project}/${ENDPOINTS[endpoint]}${qs ? `?${qs}` : ''}`, {
    headers: { authorization: `Bearer ${e.apiKey}` },
  });
  return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) as unknown };
}

/** A 200 whose body the client's schema accepts: every test reads responses through the schemas. */
async function ok<T>(e: Emulator, endpoint: Endpoint, schema: z.ZodType<T>, query: Query = {}): Promise<T> {
  const r = await get(e, endpoint, query);
  expect(r.status).toBe(200);
  return schema.parse(r.body);
}

function oneDay(day: string): { dateFrom: string; dateTo: string } {
  return { dateFrom: day, dateTo: addDays(day, 1) };
}

/** Every views page of a range by offset, as a client pages it. */
async function allViews(e: Emulator, range: Query, limit: number) {
  const rows: ViewRow[] = [];
  const totals = [];
  let pages = 0;
  for (let offset = 0; ; offset += limit) {
    const page = await ok(e, 'views', ViewsResponseSchema, { ...range, limit, offset });
    rows.push(...page.views);
    totals.push(page.totals);
    pages++;
    if (!page.hasMore) break;
  }
  return { rows, totals, pages };
}

/** Every searches page of a range by cursor, as a client pages it. */
async function allSearches(e: Emulator, range: Query, limit?: number) {
  const rows: SearchRow[] = [];
  const totals: number[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const query: Query = { ...range, ...(limit !== undefined ? { limit } : {}) };
    if (cursor !== null) query['cursor'] = cursor;
    const page = await ok(e, 'searches', SearchesResponseSchema, query);
    rows.push(...page.searches);
    totals.push(page.totalSearches);
    sizes.push(page.searches.length);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { rows, totals, sizes };
}

function errorBody(r: Reply) {
  return AnalyticsErrorSchema.parse(r.body);
}

describe('emulator: the day streams over HTTP', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it('pages views by offset to exactly the ground truth of a day, the same totals on every page', async () => {
    const day = e.dataset.edgeDays.rows251;
    const { rows, totals, pages } = await allViews(e, oneDay(day), 100);
    const truth = e.dataset.views(day);
    expect(pages).toBe(3);
    expect(rows).toEqual(truth.views);
    expect(totals.every((t) => JSON.stringify(t) === JSON.stringify(truth.totals))).toBe(true);
    expect(truth.totals.total).toBe(truth.totals.human + truth.totals.ai);
  });

  it('serves views 50 rows at a time by default, with hasMore', async () => {
    const day = e.dataset.edgeDays.rows500;
    const page = await ok(e, 'views', ViewsResponseSchema, oneDay(day));
    expect(page.views).toEqual(e.dataset.views(day).views.slice(0, 50));
    expect(page.hasMore).toBe(true);
  });

  it('adds views up over a multi-day range', async () => {
    const range = { dateFrom: e.dataset.days[2]!, dateTo: e.dataset.days[9]! };
    const { rows, totals } = await allViews(e, range, 250);
    expect(rows).toEqual(e.dataset.viewsRange(range.dateFrom, range.dateTo).views);
    let human = 0;
    for (let d = range.dateFrom; d < range.dateTo; d = addDays(d, 1))
      human += e.dataset.views(d).totals.human;
    expect(totals[0]!.human).toBe(human);
  });

  it('pages searches by cursor to exactly the ground truth of a day at the default limit', async () => {
    const day = e.dataset.days[20]!;
    const { rows, totals, sizes } = await allSearches(e, oneDay(day));
    const truth = e.dataset.searches(day);
    expect(rows).toEqual(truth.searches);
    expect(sizes.slice(0, -1).every((n) => n === 50)).toBe(true);
    expect(totals.every((t) => t === truth.totalSearches)).toBe(true);
  });

  it('gives the 100-query day one page at limit 100 and the 101-query day a second page of one', async () => {
    const edge = e.dataset.streamEdgeDays;
    const full = await allSearches(e, oneDay(edge.searches100), 100);
    const over = await allSearches(e, oneDay(edge.searches101), 100);
    expect(full.sizes).toEqual([100]);
    expect(over.sizes).toEqual([100, 1]);
    expect(over.rows).toEqual(e.dataset.searches(edge.searches101).searches);
  });

  it('answers the empty day with no searches, no calls, no feedback and no views', async () => {
    const range = oneDay(e.dataset.streamEdgeDays.empty);
    expect(await ok(e, 'searches', SearchesResponseSchema, range)).toEqual({
      searches: [],
      totalSearches: 0,
      nextCursor: null,
    });
    expect(await ok(e, 'callerStats', CallerStatsResponseSchema, range)).toEqual({
      web: 0,
      api: 0,
      other: 0,
      total: 0,
    });
    expect(await ok(e, 'feedback', FeedbackByPageResponseSchema, range)).toEqual({
      feedback: [],
      hasMore: false,
    });
    expect(await ok(e, 'views', ViewsResponseSchema, range)).toEqual({
      totals: { human: 0, ai: 0, total: 0 },
      views: [],
      hasMore: false,
    });
  });

  it('sends odd queries byte for byte once lower-cased: SQL text, emoji, unicode and quotes', async () => {
    const { rows } = await allSearches(e, oneDay(e.dataset.days[5]!), 100);
    const queries = rows.map((r) => r.searchQuery);
    expect(queries).toEqual(expect.arrayContaining(ODD_QUERIES.map((q) => q.toLowerCase())));
    // The service groups queries case-insensitively and serves the lower-cased text.
    expect(queries).toContain("'; drop table x; --");
    expect(queries).toContain('🚀 deploy');
  });

  it('pages a multi-day range of searches to the aggregated ground truth', async () => {
    const range = { dateFrom: e.dataset.days[10]!, dateTo: e.dataset.days[17]! };
    const { rows, totals } = await allSearches(e, range, 100);
    const truth = e.dataset.searchesRange(range.dateFrom, range.dateTo);
    expect(rows).toEqual(truth.searches);
    expect(totals[0]).toBe(rows.reduce((s, r) => s + r.hits, 0));
  });

  it('answers caller stats for a day, the one-call day and a range as the ground truth says', async () => {
    const day = e.dataset.days[12]!;
    expect(await ok(e, 'callerStats', CallerStatsResponseSchema, oneDay(day))).toEqual(
      e.dataset.callerStats(day),
    );
    const one = await ok(
      e,
      'callerStats',
      CallerStatsResponseSchema,
      oneDay(e.dataset.streamEdgeDays.callsOne),
    );
    expect(one.total).toBe(1);
    const range = { dateFrom: e.dataset.days[0]!, dateTo: addDays(TODAY, 1) };
    expect(await ok(e, 'callerStats', CallerStatsResponseSchema, range)).toEqual(
      e.dataset.callerStatsRange(range.dateFrom, range.dateTo),
    );
  });

  it('serves 10 feedback rows by default and a whole ordinary day at limit 100 with hasMore false', async () => {
    const day = e.dataset.days[20]!;
    const truth = e.dataset.feedbackByPage(day);
    const first = await ok(e, 'feedback', FeedbackByPageResponseSchema, oneDay(day));
    expect(first.feedback).toEqual(truth.feedback.slice(0, 10));
    expect(first.hasMore).toBe(truth.feedback.length > 10);
    expect(await ok(e, 'feedback', FeedbackByPageResponseSchema, { ...oneDay(day), limit: 100 })).toEqual(
      truth,
    );
    expect(truth.hasMore).toBe(false);
  });

  it('truncates the day with more than 100 pages of feedback: 100 rows and hasMore, nothing more to ask for', async () => {
    const day = e.dataset.streamEdgeDays.feedbackOver100;
    const page = await ok(e, 'feedback', FeedbackByPageResponseSchema, { ...oneDay(day), limit: 100 });
    expect(page.feedback).toHaveLength(100);
    expect(page.hasMore).toBe(true);
    expect(page).toEqual(e.dataset.feedbackByPage(day));
    expect(e.dataset.feedbackPages(day, addDays(day, 1)).length).toBeGreaterThan(100);
  });

  it('filters feedback by source and status', async () => {
    const range = { dateFrom: e.dataset.days[0]!, dateTo: e.dataset.days[29]! };
    const query = { ...range, limit: 100, source: 'contextual', status: 'pending,resolved' };
    const page = await ok(e, 'feedback', FeedbackByPageResponseSchema, query);
    const truth = e.dataset.feedbackPages(range.dateFrom, range.dateTo, {
      source: 'contextual',
      status: ['pending', 'resolved'],
    });
    expect(page.feedback).toEqual(truth.slice(0, 100));
    expect(page.feedback.every((r) => r.code === 0 && r.total === r.thumbsUp + r.thumbsDown)).toBe(true);
  });
});

describe('emulator: the day streams refuse what the service refuses', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it.each([
    ['views', '0'],
    ['views', '251'],
    ['searches', '0'],
    ['searches', '101'],
    ['searches', '2.5'],
    ['feedback', '0'],
    ['feedback', '101'],
  ] as const)('answers %s with limit=%s by a 400 naming limit', async (endpoint, limit) => {
    const r = await get(e, endpoint, { limit });
    expect(r.status).toBe(400);
    const body = errorBody(r);
    expect(body.error).toBe('Invalid query parameters');
    expect(body.details?.[0]?.message).toContain('limit');
  });

  it('accepts the largest limit of each endpoint', async () => {
    for (const [endpoint, limit] of [
      ['views', 250],
      ['searches', 100],
      ['feedback', 100],
    ] as const) {
      expect((await get(e, endpoint, { limit })).status).toBe(200);
    }
  });

  it.each(['views', 'searches', 'callerStats', 'feedback'] as const)(
    'validates the dates of %s like visitors: a bad date and an empty range are 400s',
    async (endpoint) => {
      const bad = await get(e, endpoint, { dateFrom: 'yesterday' });
      expect(bad.status).toBe(400);
      expect(errorBody(bad).details?.[0]?.message).toContain('dateFrom');
      const empty = await get(e, endpoint, { dateFrom: '2025-03-02', dateTo: '2025-03-02' });
      expect(errorBody(empty).details?.[0]?.message).toMatch(/dateFrom.*before dateTo/);
    },
  );

  it.each(['views', 'searches', 'callerStats', 'feedback'] as const)(
    'answers 404 for %s of an unknown project',
    async (endpoint) => {
      const r = await get(e, endpoint, {}, 'proj_other');
      expect(r.status).toBe(404);
      expect(errorBody(r).error).toContain('proj_other');
    },
  );

  it('answers 405 with Allow: GET for another method, and 404 for analytics paths it does not serve', async () => {
    const post = await fetch(`${e.url}/v1/analytics/${e.projectId}/searches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.apiKey}` },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    for (const path of [
      'assistant/threads',
      'assistant/threads/',
      'assistant/threads/01ARZ3NDEKTSV4RRFFQ69G5FAV/messages',
      'feedback/other',
      'assistant/caller-stats/x',
      'views/extra',
    ]) {
      const r = await fetch(`${e.url}/v1/analytics/${e.projectId}/${path}`, {
        headers: { authorization: `Bearer ${e.apiKey}` },
      });
      expect(r.status).toBe(404);
    }
  });

  it('refuses a garbage cursor, a tampered one and one issued for another range with a 400', async () => {
    const range = oneDay(e.dataset.days[20]!);
    const first = await ok(e, 'searches', SearchesResponseSchema, { ...range, limit: 10 });
    const cursor = first.nextCursor!;
    const tampered = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    const otherRange = oneDay(e.dataset.days[21]!);
    for (const query of [
      { ...range, cursor: 'not-a-cursor' },
      { ...range, cursor: tampered },
      { ...otherRange, cursor },
    ]) {
      const r = await get(e, 'searches', query);
      expect(r.status).toBe(400);
      expect(errorBody(r).error).toBe('Invalid cursor');
    }
    expect((await get(e, 'searches', { ...range, cursor })).status).toBe(200);
  });

  it('refuses a cursor another emulator (another seed) issued', async () => {
    const other = await startEmulator({ ...BASE, seed: 12 });
    try {
      const range = oneDay(other.dataset.days[20]!);
      const cursor = (await ok(other, 'searches', SearchesResponseSchema, { ...range, limit: 1 }))
        .nextCursor!;
      expect((await get(e, 'searches', { ...range, cursor })).status).toBe(400);
    } finally {
      await other.close();
    }
  });

  it('refuses an unknown feedback source or status', async () => {
    expect((await get(e, 'feedback', { source: 'email' })).status).toBe(400);
    expect((await get(e, 'feedback', { status: 'pending,closed' })).status).toBe(400);
  });
});

describe('emulator: one rate limit and the same faults for every analytics endpoint', () => {
  let e: Emulator | undefined;
  afterEach(async () => {
    await e?.close();
    e = undefined;
  });

  it('counts visitors, views, searches, caller stats and feedback against one sliding window', async () => {
    e = await startEmulator({ ...BASE, rateLimit: '3/1h' });
    const statuses = [];
    for (const endpoint of ['visitors', 'views', 'searches', 'callerStats', 'feedback'] as const) {
      statuses.push((await get(e, endpoint, { limit: 1 })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(e.stats.rateLimited).toBe(2);
  });

  it('does not count agent calls against the analytics window', async () => {
    e = await startEmulator({ ...BASE, rateLimit: '1/1h' });
    const agent = await fetch(`${e.url}/v2/agent/${e.projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'fix typos' }),
    });
    expect(agent.status).toBe(201);
    expect((await get(e, 'searches', { limit: 1 })).status).toBe(200);
  });

  it('injects faults into the new endpoints too, never more than 3 in a row', async () => {
    e = await startEmulator({ ...BASE, faults: 1, slowMs: 1 });
    const url = (endpoint: Endpoint, i: number) =>
      `${e!.url}/v1/analytics/${e!.projectId}/${ENDPOINTS[endpoint]}?limit=${1 + i}`;
    const schemas = {
      views: ViewsResponseSchema,
      searches: SearchesResponseSchema,
      callerStats: CallerStatsResponseSchema,
      feedback: FeedbackByPageResponseSchema,
      visitors: VisitorsResponseSchema,
    };
    for (const endpoint of ['views', 'searches', 'callerStats', 'feedback'] as const) {
      for (let i = 0; i < 5; i++) {
        let failures = 0;
        for (;;) {
          const res = await fetch(url(endpoint, i), { headers: { authorization: `Bearer ${e.apiKey}` } });
          const text = await res.text().catch(() => undefined);
          if (res.status === 200 && text !== undefined) {
            schemas[endpoint].parse(JSON.parse(text));
            break;
          }
          failures++;
          expect(failures).toBeLessThanOrEqual(3);
        }
      }
    }
    expect(e.stats.faults).toBeGreaterThan(0);
  });

  it('delays every analytics answer by latencyMs', async () => {
    e = await startEmulator({ ...BASE, latencyMs: 60 });
    const started = performance.now();
    await get(e, 'callerStats');
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});
