import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { addDays, emulatorBanner, FAULT_KINDS, startEmulator } from '../../src/emulator/index.js';
import { untilEpoch } from '../helpers/wait.js';

const TODAY = '2025-03-15';
const BASE: EmulatorOptions = { seed: 11, days: 30, paths: 600, today: TODAY };

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function call(
  e: Emulator,
  path: string,
  init: { method?: string; key?: string | null; body?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? e.apiKey : init.key;
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${e.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

function visitors(e: Emulator, query: Record<string, string | number>): Promise<Reply> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return call(e, `/v1/analytics/${e.projectId}/visitors${qs ? `?${qs}` : ''}`);
}

function oneDay(day: string): { dateFrom: string; dateTo: string } {
  return { dateFrom: day, dateTo: addDays(day, 1) };
}

interface Page {
  totals: { human: number; ai: number; total: number };
  visitors: { path: string; human: number; ai: number; total: number }[];
  hasMore: boolean;
}

describe('emulator: visitors', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator(BASE);
  });
  afterAll(() => e.close());

  it('prints a banner with the URL, project and key', () => {
    expect(emulatorBanner(e)).toBe(
      `mintlify emulator on ${e.url} project=proj_demo key=mint_emulator_demo_key`,
    );
    expect(e.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(e.apiKey.startsWith('mint_')).toBe(true);
  });

  it('answers a day with the totals, the first 50 rows and hasMore by default', async () => {
    const day = e.dataset.edgeDays.rows251;
    const r = await visitors(e, oneDay(day));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const page = r.body as Page;
    expect(page.totals).toEqual(e.dataset.site(day));
    expect(page.visitors).toEqual(e.dataset.pages(day).slice(0, 50));
    expect(page.hasMore).toBe(true);
  });

  it('defaults to the 30 days ending with today (dateTo = tomorrow) when no dates are given', async () => {
    const r = await visitors(e, { limit: 250 });
    const expected = e.dataset.query(addDays(TODAY, -29), addDays(TODAY, 1));
    expect((r.body as Page).totals).toEqual(expected.totals);
    expect((r.body as Page).visitors).toEqual(expected.rows.slice(0, 250));
  });

  it('serves a multi-day range de-duplicated, as the ground truth says', async () => {
    const from = e.dataset.days[3]!;
    const to = e.dataset.days[10]!;
    const r = await visitors(e, { dateFrom: from, dateTo: to, limit: 250 });
    const expected = e.dataset.query(from, to);
    expect((r.body as Page).totals).toEqual(expected.totals);
    expect((r.body as Page).visitors).toEqual(expected.rows.slice(0, 250));
  });

  it('takes the UTC date of ISO 8601 date-times', async () => {
    const day = e.dataset.edgeDays.rows250;
    const r = await visitors(e, {
      dateFrom: `${day}T10:00:00Z`,
      dateTo: `${day}T23:30:00-02:00`,
      limit: 1,
    });
    expect(r.status).toBe(200);
    expect((r.body as Page).totals).toEqual(e.dataset.site(day));
  });

  it('pages through the 251-row day with limit 250: 250 rows and hasMore, then 1 row and no more', async () => {
    const day = e.dataset.edgeDays.rows251;
    const first = (await visitors(e, { ...oneDay(day), limit: 250, offset: 0 })).body as Page;
    const second = (await visitors(e, { ...oneDay(day), limit: 250, offset: 250 })).body as Page;
    expect([first.visitors.length, first.hasMore]).toEqual([250, true]);
    expect([second.visitors.length, second.hasMore]).toEqual([1, false]);
    expect(second.totals).toEqual(first.totals);
    expect([...first.visitors, ...second.visitors]).toEqual(e.dataset.pages(day));
  });

  it('says hasMore false on the 250-row day once the page holds the last row', async () => {
    const page = (await visitors(e, { ...oneDay(e.dataset.edgeDays.rows250), limit: 250 })).body as Page;
    expect([page.visitors.length, page.hasMore]).toEqual([250, false]);
  });

  it('answers the empty day with zero totals and no rows', async () => {
    const page = (await visitors(e, oneDay(e.dataset.edgeDays.empty))).body as Page;
    expect(page).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });

  it('sends the odd paths exactly, unicode, quotes, backslash and case pair included', async () => {
    const day = e.dataset.edgeDays.rows500;
    const a = (await visitors(e, { ...oneDay(day), limit: 250 })).body as Page;
    const b = (await visitors(e, { ...oneDay(day), limit: 250, offset: 250 })).body as Page;
    const paths = [...a.visitors, ...b.visitors].map((r) => r.path);
    expect(paths).toHaveLength(500);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/docs/café-☕',
        '/docs/日本語/ガイド',
        '/docs/back\\slash',
        '/docs/API',
        '/docs/api',
      ]),
    );
    expect(b.hasMore).toBe(false);
  });

  it.each([
    ['limit', '0'],
    ['limit', '251'],
    ['limit', 'abc'],
    ['limit', '1.5'],
    ['limit', ''],
    ['offset', '-1'],
    ['offset', '1.5'],
    ['dateFrom', 'nope'],
    ['dateTo', '2025-02-30'],
  ])('refuses %s=%j with a 400 naming the parameter', async (name, value) => {
    const r = await visitors(e, { [name]: value });
    expect(r.status).toBe(400);
    const body = r.body as { error: string; details: { message: string }[] };
    expect(body.error).toBe('Invalid query parameters');
    expect(body.details).toHaveLength(1);
    expect(body.details[0]!.message).toContain(name);
  });

  it('refuses dateFrom equal to or after dateTo with a 400', async () => {
    for (const q of [
      { dateFrom: '2025-03-01', dateTo: '2025-03-01' },
      { dateFrom: '2025-03-02', dateTo: '2025-03-01' },
    ]) {
      const r = await visitors(e, q);
      expect(r.status).toBe(400);
      expect((r.body as { details: { message: string }[] }).details[0]!.message).toMatch(
        /dateFrom.*before dateTo/,
      );
    }
  });

  it('reports every bad parameter of one request at once', async () => {
    const r = await visitors(e, { limit: 0, offset: -1, dateFrom: 'x' });
    expect(r.status).toBe(400);
    expect((r.body as { details: unknown[] }).details).toHaveLength(3);
  });

  it('refuses a missing or wrong key with 401 and a JSON error', async () => {
    const path = `/v1/analytics/${e.projectId}/visitors`;
    for (const key of [null, 'mint_wrong']) {
      const r = await call(e, path, { key });
      expect(r.status).toBe(401);
      expect(typeof (r.body as { error: unknown }).error).toBe('string');
    }
  });

  it('answers 404 for an unknown project and an unknown route, 405 for a wrong method', async () => {
    const project = await call(e, '/v1/analytics/proj_other/visitors');
    expect(project.status).toBe(404);
    expect((project.body as { error: string }).error).toContain('proj_other');
    expect((await call(e, '/v1/analytics/proj_demo/pageviews')).status).toBe(404);
    expect((await call(e, '/')).status).toBe(404);
    const wrong = await call(e, `/v1/analytics/${e.projectId}/visitors`, { method: 'POST', body: '{}' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('counts requests by status and logs each one', async () => {
    e.resetStats();
    await visitors(e, oneDay(e.dataset.edgeDays.rows250));
    await visitors(e, { limit: 0 });
    expect(e.stats.requests).toBe(2);
    expect(e.stats.byStatus).toEqual({ 200: 1, 400: 1 });
    expect(e.stats.log.map((l) => [l.method, l.path, l.status])).toEqual([
      ['GET', '/v1/analytics/proj_demo/visitors', 200],
      ['GET', '/v1/analytics/proj_demo/visitors', 400],
    ]);
    expect(e.stats.log[1]!.query).toBe('limit=0');
  });
});

describe('emulator: options', () => {
  let e: Emulator | undefined;
  afterEach(async () => {
    await e?.close();
    e = undefined;
  });

  it('with hasMoreOnFullPages, says hasMore on a full 250-row page and then serves an empty page', async () => {
    e = await startEmulator({ ...BASE, hasMoreOnFullPages: true });
    const day = e.dataset.edgeDays.rows250;
    const first = (await visitors(e, { ...oneDay(day), limit: 250 })).body as Page;
    const second = (await visitors(e, { ...oneDay(day), limit: 250, offset: 250 })).body as Page;
    expect([first.visitors.length, first.hasMore]).toEqual([250, true]);
    expect([second.visitors.length, second.hasMore]).toEqual([0, false]);
  });

  it('answers 429 without Retry-After once N requests arrived in the window', async () => {
    // A window of an hour: every one of these arrives inside it, however slow the machine.
    e = await startEmulator({ ...BASE, rateLimit: '3/1h' });
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let i = 0; i < 5; i++) {
      last = await visitors(e, { limit: 1 });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last?.body).toEqual({ error: 'Rate limit exceeded' });
    expect(last?.headers.get('retry-after')).toBeNull();
    expect(e.stats.rateLimited).toBe(2);
  });

  it('decides by the arrivals of the last window, refused ones included, and answers 200 once they are a window old', async () => {
    const windowMs = 300;
    e = await startEmulator({ ...BASE, rateLimit: `3/${windowMs}ms` });
    // Back-to-back requests until one is refused (the hang guard is the count, not a time).
    for (let i = 0; i < 50 && e.stats.rateLimited === 0; i++) await visitors(e, { limit: 1 });
    expect(e.stats.rateLimited).toBeGreaterThan(0);
    // Every answer follows from the arrival times the emulator logged: 429 when 3 requests
    // (answered or refused) arrived in the half-open window before it.
    const log = e.stats.log;
    const expected = log.map((l, i) =>
      log.slice(0, i).filter((o) => o.at > l.at - windowMs).length < 3 ? 200 : 429,
    );
    expect(log.map((l) => l.status)).toEqual(expected);
    // Once the last arrival is a window old, nothing counts any more.
    await untilEpoch(Math.max(...log.map((l) => l.at)) + windowMs);
    expect((await visitors(e, { limit: 1 })).status).toBe(200);
  });

  it('counts only authorized analytics requests against the analytics limit', async () => {
    e = await startEmulator({ ...BASE, rateLimit: '2/1h' });
    const agent = await call(e, `/v2/agent/${e.projectId}/job`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'fix typos' }),
    });
    const statuses = [
      agent.status,
      (await call(e, `/v1/analytics/${e.projectId}/visitors?limit=1`, { key: 'mint_wrong' })).status,
      (await call(e, '/v1/analytics/nope/visitors?limit=1')).status,
      (await call(e, '/v1/nothing-here')).status,
      (await visitors(e, { limit: 1 })).status,
      (await visitors(e, { limit: 1 })).status,
      (await visitors(e, { limit: 1 })).status,
    ];
    expect(statuses).toEqual([201, 401, 404, 404, 200, 200, 429]);
    expect(e.stats.rateLimited).toBe(1);
  });

  it('limits agent creates and messages per project, apart from analytics', async () => {
    e = await startEmulator({ ...BASE, rateLimit: '1/1h', agentRateLimit: '2/1h' });
    const create = () =>
      call(e!, `/v2/agent/${e!.projectId}/job`, { method: 'POST', body: JSON.stringify({ prompt: 'x' }) });
    const first = await create();
    const job = (first.body as { id: string }).id;
    const statuses = [
      first.status,
      (await call(e, `/v2/agent/${e.projectId}/job/${job}`)).status,
      (await create()).status,
      (await create()).status,
      (await call(e, `/v2/agent/${e.projectId}/job/${job}`)).status,
      (await visitors(e, { limit: 1 })).status,
    ];
    expect(statuses).toEqual([201, 200, 201, 429, 200, 200]);
  });

  it('refuses a malformed rate limit', async () => {
    await expect(startEmulator({ ...BASE, rateLimit: 'lots' })).rejects.toThrow(/N\/DURATION/);
  });

  it('delays every answer by latencyMs', async () => {
    e = await startEmulator({ ...BASE, latencyMs: 80 });
    const t0 = performance.now();
    await call(e, '/nowhere');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
  });

  it('closes promptly while a keep-alive connection is open', async () => {
    e = await startEmulator(BASE);
    await visitors(e, { limit: 1 });
    const t0 = performance.now();
    await e.close();
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('takes its project and key from the options', async () => {
    e = await startEmulator({ ...BASE, projectId: 'proj_x', apiKey: 'mint_other' });
    expect(emulatorBanner(e)).toBe(`mintlify emulator on ${e.url} project=proj_x key=mint_other`);
    expect((await visitors(e, { limit: 1 })).status).toBe(200);
    expect((await call(e, '/v1/analytics/proj_demo/visitors')).status).toBe(404);
  });
});

describe('emulator: faults', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator({ ...BASE, faults: 1, slowMs: 5, retryAfterSeconds: 2 });
  });
  afterAll(() => e.close());

  interface Attempt {
    /** Epoch ms just before the request was sent and just after its headers arrived. */
    sentAt: number;
    answeredAt: number;
    status: number;
    retryAfter: string | null;
    contentType: string | null;
    text: string;
    reset: boolean;
  }

  async function attempt(path: string): Promise<Attempt> {
    const sentAt = Date.now();
    const res = await fetch(`${e.url}${path}`, { headers: { authorization: `Bearer ${e.apiKey}` } });
    const head = {
      sentAt,
      answeredAt: Date.now(),
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      contentType: res.headers.get('content-type'),
    };
    try {
      return { ...head, text: await res.text(), reset: false };
    } catch {
      return { ...head, text: '', reset: true };
    }
  }

  it('fails one request at most 3 times in a row, then answers it correctly', async () => {
    const seen: Attempt[] = [];
    let longest = 0;
    for (let i = 0; i < 40; i++) {
      const path = `/v1/analytics/${e.projectId}/visitors?limit=${1 + (i % 250)}&offset=${i}`;
      let failures = 0;
      for (;;) {
        const a = await attempt(path);
        seen.push(a);
        if (a.status === 200 && !a.reset) break;
        failures++;
        expect(failures).toBeLessThanOrEqual(3);
      }
      longest = Math.max(longest, failures);
    }
    expect(longest).toBe(3);

    // Every kind shows up over these attempts, as the client sees it.
    const rateSeconds = seen.find((a) => a.status === 429 && a.retryAfter === '2');
    const rateDate = seen.find(
      (a) => a.status === 429 && a.retryAfter !== null && a.retryAfter.endsWith('GMT'),
    );
    expect(rateSeconds).toBeDefined();
    expect(rateDate).toBeDefined();
    // 2 s after the answer was made (between send and answer), rounded up to a whole second.
    const date = Date.parse(rateDate!.retryAfter!);
    expect(date % 1_000).toBe(0);
    expect(date).toBeGreaterThanOrEqual(rateDate!.sentAt + 2_000);
    expect(date).toBeLessThanOrEqual(rateDate!.answeredAt + 3_000);
    expect(seen.find((a) => a.status === 500)?.text).toBe('{"error":"Internal server error"}');
    expect(seen.find((a) => a.status === 502)?.contentType).toContain('text/html');
    expect(seen.some((a) => a.status === 503)).toBe(true);
    expect(seen.some((a) => a.reset)).toBe(true);
    expect(Object.keys(e.stats.faultsByKind).sort()).toEqual([...FAULT_KINDS].sort());
    expect(e.stats.slow).toBe(e.stats.faultsByKind.slow);
    expect(e.stats.faults).toBe(seen.filter((a) => a.status !== 200 || a.reset).length);
  });

  it('never injects a fault into a 401 or a 400', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await call(e, `/v1/analytics/${e.projectId}/visitors`, { key: 'mint_bad' })).status).toBe(401);
      expect((await visitors(e, { limit: 999 })).status).toBe(400);
    }
  });
});

describe('emulator: agent jobs', () => {
  let e: Emulator;
  beforeAll(async () => {
    e = await startEmulator({ ...BASE, pollsToFinish: 2 });
  });
  afterAll(() => e.close());

  const jobs = () => `/v2/agent/${e.projectId}/job`;
  const create = (prompt: unknown) => call(e, jobs(), { method: 'POST', body: JSON.stringify({ prompt }) });

  interface Job {
    id: string;
    status: string;
    source: { repository: string; ref: string | null };
    model: string;
    prLink: string | null;
    createdAt: string;
    archivedAt: string | null;
  }

  it('creates an active job with 201 and no PR link yet', async () => {
    const r = await create('Document the new webhook retries');
    expect(r.status).toBe(201);
    const job = r.body as Job;
    expect(job).toMatchObject({
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: 'main' },
      prLink: null,
      archivedAt: null,
    });
    expect(typeof job.model).toBe('string');
    expect(Number.isNaN(Date.parse(job.createdAt))).toBe(false);
  });

  it('completes with a pull request URL after pollsToFinish GETs', async () => {
    const job = (await create('Fix typos in the quickstart')).body as Job;
    const first = (await call(e, `${jobs()}/${job.id}`)).body as Job;
    const second = (await call(e, `${jobs()}/${job.id}`)).body as Job;
    expect([first.status, first.prLink]).toEqual(['active', null]);
    expect(second.status).toBe('completed');
    expect(second.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    expect(((await call(e, `${jobs()}/${job.id}`)).body as Job).prLink).toBe(second.prLink);
  });

  it.each([
    ['Check the links, expect No Changes', 'completed', false],
    ['This one will FAIL', 'failed', false],
    ['Please archive this', 'archived', true],
  ])('finishes %j as %s', async (prompt, status, archived) => {
    const job = (await create(prompt)).body as Job;
    await call(e, `${jobs()}/${job.id}`);
    const done = (await call(e, `${jobs()}/${job.id}`)).body as Job;
    expect(done.status).toBe(status);
    expect(done.prLink).toBeNull();
    expect(done.archivedAt !== null).toBe(archived);
  });

  it('answers 404 for an unknown job, on GET and on message', async () => {
    expect((await call(e, `${jobs()}/job_nope`)).status).toBe(404);
    const msg = await call(e, `${jobs()}/job_nope/message`, { method: 'POST', body: '{"prompt":"hi"}' });
    expect(msg.status).toBe(404);
    expect((msg.body as { error: string }).error).toBe('Job not found');
  });

  it.each([
    ['an empty prompt', '{"prompt":""}'],
    ['a missing prompt', '{}'],
    ['a prompt that is not a string', '{"prompt":5}'],
    ['a body that is not JSON', 'prompt=hi'],
  ])('refuses %s with 400 and an error', async (_what, body) => {
    const r = await call(e, jobs(), { method: 'POST', body });
    expect(r.status).toBe(400);
    expect(typeof (r.body as { error: unknown }).error).toBe('string');
  });

  it('reopens a job on a follow-up message (200, active) and finishes it again after the polls', async () => {
    const job = (await create('Add a FAQ page')).body as Job;
    await call(e, `${jobs()}/${job.id}`);
    const done = (await call(e, `${jobs()}/${job.id}`)).body as Job;
    const msg = await call(e, `${jobs()}/${job.id}/message`, {
      method: 'POST',
      body: '{"prompt":"Also link it"}',
    });
    expect(msg.status).toBe(200);
    expect(msg.body).toMatchObject({ id: job.id, status: 'active', prLink: null });
    const empty = await call(e, `${jobs()}/${job.id}/message`, { method: 'POST', body: '{"prompt":""}' });
    expect(empty.status).toBe(400);
    await call(e, `${jobs()}/${job.id}`);
    const again = (await call(e, `${jobs()}/${job.id}`)).body as Job;
    expect(again.status).toBe('completed');
    expect(again.prLink).toBe(done.prLink);
  });

  it('refuses agent calls without the key or for another project', async () => {
    expect((await call(e, jobs(), { method: 'POST', body: '{"prompt":"x"}', key: null })).status).toBe(401);
    const other = await call(e, '/v2/agent/proj_other/job', { method: 'POST', body: '{"prompt":"x"}' });
    expect(other.status).toBe(404);
    expect((await call(e, jobs())).status).toBe(405);
  });
});
