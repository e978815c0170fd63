import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBudget, type AcquireOptions } from '../../src/api/budget.js';
import type { Sleep } from '../../src/api/retry.js';
import {
  MintlifyClient,
  type ClientRetryEvent,
  type MintlifyClientOptions,
  type RequestEvent,
} from '../../src/api/client.js';
import { ApiKey } from '../../src/api/key.js';
import type { VisitorsPage } from '../../src/api/schemas.js';
import {
  AuthError,
  HttpStatusError,
  NetworkError,
  RateLimitError,
  ResponseTooLargeError,
  UnreachableError,
  ValidationError,
} from '../../src/errors.js';
import { addDays, startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { RateLimitSpec } from '../../src/util/duration.js';

const KEY = 'mint_integration_test_key_0123456789';
const Q = { dateFrom: '2025-01-01', dateTo: '2025-01-02', limit: 250, offset: 0 };
const PAGE = {
  totals: { human: 10, ai: 3, total: 12 },
  visitors: [{ path: '/intro', human: 10, ai: 3, total: 12 }],
  hasMore: false,
};
const JOB = {
  id: 'job_1',
  status: 'active',
  source: { repository: 'https://github.com/org/docs', ref: null },
  model: 'sonnet',
  prLink: null,
  createdAt: '2025-01-01T00:00:00Z',
  archivedAt: null,
};

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Seen {
  at: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Scripted {
  url: string;
  seen: Seen[];
  connections: () => number;
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

const html =
  (status: number): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
  };

/** Sends headers and part of the body, then drops the connection. */
const resetMidBody: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
  res.write('{"totals":{"human":1', () => res.socket?.destroy());
};

/** Drops the connection before any response. */
const resetBeforeResponse: Handler = (req) => {
  req.socket.destroy();
};

/** Answers with `handler` after `ms` (unless the connection is gone by then). */
const later =
  (ms: number, handler: Handler): Handler =>
  (req, res, body) => {
    const timer = setTimeout(() => handler(req, res, body), ms);
    res.on('close', () => clearTimeout(timer));
  };

interface SleepSeen {
  ms: number;
  /** Requests the server had seen when the sleep began. */
  afterRequests: number;
}

/**
 * A clock for the budget and the client that moves only when one of them sleeps: sleeps return
 * at once and advance it, so waits are asserted by their length, not by the wall clock.
 */
function virtualClock(requestsSeen: () => number) {
  let offset = 0;
  const clientSleeps: SleepSeen[] = [];
  const budgetSleeps: SleepSeen[] = [];
  const sleeper =
    (into: SleepSeen[]): Sleep =>
    async (ms, signal) => {
      signal?.throwIfAborted();
      into.push({ ms, afterRequests: requestsSeen() });
      offset += ms;
      await Promise.resolve();
    };
  return {
    now: () => Date.now() + offset,
    clientSleep: sleeper(clientSleeps),
    budgetSleep: sleeper(budgetSleeps),
    clientSleeps,
    budgetSleeps,
  };
}

/** A budget that remembers its grant times. */
class GrantRecordingBudget extends RequestBudget {
  readonly grants: number[] = [];
  override async acquire(opts?: AcquireOptions): Promise<number> {
    const at = await super.acquire(opts);
    this.grants.push(at);
    return at;
  }
}

let servers: Server[] = [];
let clients: MintlifyClient[] = [];

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  clients = [];
});

/** A tiny HTTP server that answers the n-th request with the n-th handler (the last one repeats). */
async function scripted(...handlers: Handler[]): Promise<Scripted> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ at: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = handlers[Math.min(seen.length - 1, handlers.length - 1)];
      handler?.(req, res, body);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, connections: () => connections };
}

function rateLimit(limit: number, windowMs: number): RateLimitSpec {
  return { limit, windowMs, text: `${limit}/${windowMs}ms` };
}

function setup(url: string, overrides: Partial<MintlifyClientOptions> = {}) {
  const requests: RequestEvent[] = [];
  const retries: ClientRetryEvent[] = [];
  const budget = overrides.budget ?? new RequestBudget(rateLimit(1_000, 1_000));
  const client = new MintlifyClient({
    baseUrl: url,
    apiKey: new ApiKey(KEY),
    budget,
    backoff: { minMs: 5, maxMs: 20 },
    onRequest: (e) => requests.push(e),
    onRetry: (e) => retries.push(e),
    ...overrides,
  });
  clients.push(client);
  return { client, budget, requests, retries };
}

describe('MintlifyClient', () => {
  it('sends the bearer key, Accept and User-Agent headers and the query, and parses the page', async () => {
    const server = await scripted(json(200, PAGE));
    const { client, requests } = setup(server.url);
    await expect(client.getVisitors('proj 1', Q)).resolves.toEqual(PAGE);
    const [req] = server.seen;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe(
      '/v1/analytics/proj%201/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=0',
    );
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^mintlify-etl\/\d+\.\d+\.\d+/);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ endpoint: 'visitors', projectId: 'proj 1', status: 200 });
    expect(requests[0]?.errorCode).toBeUndefined();
  });

  it('reuses kept-alive connections across requests', async () => {
    const server = await scripted(json(200, PAGE));
    const { client } = setup(server.url);
    for (let i = 0; i < 6; i++) await client.getVisitors('p', { ...Q, offset: i * 250 });
    expect(server.seen).toHaveLength(6);
    // undici may open a second connection while the first is still being released; not six.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('keeps a path prefix of the base URL', async () => {
    const server = await scripted(json(200, PAGE));
    const { client } = setup(`${server.url}/api/`);
    await client.getVisitors('p', Q);
    expect(server.seen[0]?.url.startsWith('/api/v1/analytics/p/visitors?')).toBe(true);
  });

  it('retries a 429 with Retry-After once, after waiting exactly the hint, and the budget pause adds no second wait', async () => {
    const server = await scripted(
      json(429, { error: 'rate limited' }, { 'retry-after': '1' }),
      json(200, PAGE),
    );
    const clock = virtualClock(() => server.seen.length);
    const budget = new RequestBudget(rateLimit(1_000, 1_000), { now: clock.now, sleep: clock.budgetSleep });
    const { client, retries, requests } = setup(server.url, { budget, sleep: clock.clientSleep });
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(server.seen).toHaveLength(2);
    // One wait of the hint, between the two requests; the budget's pause (also 1 s from the
    // 429) is over by then, so the budget does not wait on top of it.
    expect(clock.clientSleeps).toEqual([{ ms: 1_000, afterRequests: 1 }]);
    expect(clock.budgetSleeps).toEqual([]);
    expect(retries.map((r) => [r.attempt, r.delayMs, r.endpoint])).toEqual([[1, 1_000, 'visitors']]);
    expect(requests.map((r) => r.status)).toEqual([429, 200]);
    expect(budget.waitTimeMs()).toBe(0);
  });

  it('defers with RateLimitError when Retry-After is longer than maxWaitMs, and pauses the budget', async () => {
    const server = await scripted(json(429, { error: 'rate limited' }, { 'retry-after': '3600' }));
    const { client, budget } = setup(server.url, { maxWaitMs: 10_000 });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).waitMs).toBe(3_600_000);
    expect(server.seen).toHaveLength(1);
    expect(budget.waitTimeMs()).toBeGreaterThan(3_590_000);
  });

  it('pauses the whole budget on a 429 without a hint until the oldest request ages out', async () => {
    const server = await scripted(json(429, { error: 'rate limited' }), json(200, PAGE));
    const clock = virtualClock(() => server.seen.length);
    const budget = new GrantRecordingBudget(rateLimit(5, 400), { now: clock.now, sleep: clock.budgetSleep });
    const { client } = setup(server.url, { budget, sleep: clock.clientSleep });
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(server.seen).toHaveLength(2);
    // One request of five in the window, yet the budget held the retry until that request was a
    // window (400 ms) old: after the backoff, it waited the rest of the pause.
    const [first, second] = budget.grants;
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(400);
    expect(clock.clientSleeps).toHaveLength(1);
    expect(clock.clientSleeps[0]?.ms).toBeLessThan(400);
    expect(clock.budgetSleeps).toHaveLength(1);
    expect(clock.budgetSleeps[0]?.afterRequests).toBe(1);
    // Together the waits are the pause and no more (the clock also moved a little on its own).
    expect((clock.clientSleeps[0]?.ms ?? 0) + (clock.budgetSleeps[0]?.ms ?? 0)).toBeLessThanOrEqual(400);
  });

  it('turns a hint-less 429 whose pause outlasts maxWaitMs into RateLimitError', async () => {
    const server = await scripted(json(429, { error: 'rate limited' }));
    const { client, budget } = setup(server.url, {
      budget: new RequestBudget(rateLimit(100, 3_600_000)),
      maxWaitMs: 10_000,
    });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toContain('the API asked us to pause (429)');
    expect(server.seen).toHaveLength(1);
    expect(budget.freesAt() - (server.seen[0]?.at ?? 0)).toBeGreaterThan(3_590_000);
  });

  it('retries 500, an HTML 502 and 503, then succeeds', async () => {
    const server = await scripted(
      json(500, { error: 'internal' }),
      html(502),
      json(503, { error: 'unavailable' }),
      json(200, PAGE),
    );
    const { client, retries, requests } = setup(server.url);
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(requests.map((r) => r.status)).toEqual([500, 502, 503, 200]);
    expect(retries.map((r) => r.error.message)).toEqual([
      `GET /v1/analytics/p/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=0 answered HTTP 500: internal`,
      `GET /v1/analytics/p/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=0 answered HTTP 502`,
      `GET /v1/analytics/p/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=0 answered HTTP 503: unavailable`,
    ]);
    for (const r of retries) expect(r.delayMs).toBeGreaterThan(0);
  });

  it('retries a connection reset in the middle of the body', async () => {
    const server = await scripted(resetMidBody, json(200, PAGE));
    const { client, retries, requests } = setup(server.url);
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(retries[0]?.error).toBeInstanceOf(NetworkError);
    expect(requests[0]).toMatchObject({ status: 200, errorCode: 'UND_ERR_SOCKET' });
  });

  it('retries a 200 whose body is not JSON', async () => {
    const server = await scripted(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"totals": {"hum');
      },
      json(200, PAGE),
    );
    const { client, retries, requests } = setup(server.url);
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(retries[0]?.error.message).toMatch(/HTTP 200 with a body that is not JSON/);
    expect(requests[0]).toMatchObject({ status: 200, errorCode: 'E_NOT_JSON' });
  });

  it('retries a response that does not come within the headers timeout', async () => {
    // undici checks headers/body timeouts on a coarse (~0.5 s) tick, so the slow answer must be far later.
    const server = await scripted(
      (req, res) => {
        const late = setTimeout(() => json(200, PAGE)(req, res, ''), 2_500);
        res.on('close', () => clearTimeout(late));
      },
      json(200, PAGE),
    );
    const { client, retries, requests } = setup(server.url, {
      timeouts: { connectMs: 1_000, headersMs: 100, bodyMs: 1_000 },
    });
    await expect(client.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(retries[0]?.error.message).toContain('no response within 100 ms (UND_ERR_HEADERS_TIMEOUT)');
    expect(requests[0]).toMatchObject({ status: null, errorCode: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('answers a 401 with AuthError pointing at MINTLIFY_API_KEY, without retrying', async () => {
    const server = await scripted(json(401, { error: 'Unauthorized' }));
    const { client, retries } = setup(server.url);
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).status).toBe(401);
    expect((err as AuthError).exitCode).toBe(3);
    expect((err as Error).message).toContain('check MINTLIFY_API_KEY');
    expect((err as Error).message).toContain('(server said: Unauthorized)');
    expect(server.seen).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('answers a 403 with AuthError about scope or IP allow-list, without retrying', async () => {
    const server = await scripted(html(403));
    const { client } = setup(server.url);
    await expect(client.getAgentJob('p', 'job_1')).rejects.toThrow(/allow-list/);
    expect(server.seen).toHaveLength(1);
  });

  it('answers a 400 with HttpStatusError carrying the server error and details, without retrying', async () => {
    const server = await scripted(
      json(400, { error: 'Invalid query parameters', details: [{ message: 'limit must be <= 250' }] }),
    );
    const { client } = setup(server.url);
    const err = await client.getVisitors('p', { ...Q, limit: 251 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).not.toBeInstanceOf(AuthError);
    expect((err as HttpStatusError).status).toBe(400);
    expect((err as HttpStatusError).serverDetails).toEqual(['limit must be <= 250']);
    expect((err as Error).message).toBe(
      'GET /v1/analytics/p/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=251&offset=0 answered HTTP 400: Invalid query parameters (limit must be <= 250)',
    );
    expect(server.seen).toHaveLength(1);
  });

  it('keeps the status of an error whose body is HTML, with no server message', async () => {
    const server = await scripted(html(400));
    const { client } = setup(server.url);
    const err = (await client.getVisitors('p', Q).catch((e: unknown) => e)) as HttpStatusError;
    expect(err.status).toBe(400);
    expect(err.serverError).toBeUndefined();
  });

  it('reports an unknown job as a 404 HttpStatusError, without retrying', async () => {
    const server = await scripted(json(404, { error: 'Job not found' }));
    const { client } = setup(server.url);
    const err = (await client.getAgentJob('p', 'nope').catch((e: unknown) => e)) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.status).toBe(404);
    expect(err.message).toBe('GET /v2/agent/p/job/nope answered HTTP 404: Job not found');
    expect(server.seen).toHaveLength(1);
  });

  it('does not retry a body that fails the schema', async () => {
    const server = await scripted(
      json(200, { ...PAGE, visitors: [{ path: '/a', human: 1, ai: 0, total: -1 }] }),
    );
    const { client, requests } = setup(server.url);
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain('visitors[0].total');
    expect(server.seen).toHaveLength(1);
    expect(requests[0]).toMatchObject({ status: 200, errorCode: 'E_VALIDATION' });
  });

  it('creates an agent job with a JSON prompt and reads the 201 job', async () => {
    const server = await scripted(json(201, { ...JOB, unknownField: true }));
    const { client, requests } = setup(server.url);
    await expect(client.createAgentJob('p', 'Document the CLI')).resolves.toEqual(JOB);
    expect(server.seen[0]).toMatchObject({
      method: 'POST',
      url: '/v2/agent/p/job',
      body: '{"prompt":"Document the CLI"}',
    });
    expect(server.seen[0]?.headers['content-type']).toBe('application/json');
    expect(requests[0]).toMatchObject({ endpoint: 'agent.create', status: 201 });
  });

  it('does not retry a POST create after a 500: the job may exist', async () => {
    const server = await scripted(json(500, { error: 'internal' }), json(201, JOB));
    const { client, retries } = setup(server.url);
    await expect(client.createAgentJob('p', 'x')).rejects.toMatchObject({ status: 500 });
    expect(server.seen).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('does not retry a POST message after a connection reset', async () => {
    const server = await scripted(resetMidBody, json(200, JOB));
    const { client } = setup(server.url);
    await expect(client.sendAgentMessage('p', 'job_1', 'more')).rejects.toBeInstanceOf(NetworkError);
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]?.url).toBe('/v2/agent/p/job/job_1/message');
  });

  it('retries a POST create after a 429', async () => {
    const server = await scripted(json(429, { error: 'rate limited' }), json(201, JOB));
    const { client, retries } = setup(server.url, { budget: new RequestBudget(rateLimit(5, 200)) });
    await expect(client.createAgentJob('p', 'x')).resolves.toEqual(JOB);
    expect(server.seen).toHaveLength(2);
    expect(retries.map((r) => r.endpoint)).toEqual(['agent.create']);
  });

  it('gives up after maxAttempts with the last error', async () => {
    let n = 0;
    const server = await scripted((_req, res) => json(503, { error: `boom ${++n}` })(_req, res, ''));
    const { client, retries } = setup(server.url, { maxAttempts: 3 });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect((err as HttpStatusError).serverError).toBe('boom 3');
    expect(server.seen).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it('reports every attempt through onRequest, with a null status when no response arrived', async () => {
    const server = await scripted(
      resetBeforeResponse,
      later(150, json(500, { error: 'x' })),
      later(100, json(200, PAGE)),
    );
    const { client, requests } = setup(server.url);
    await client.getVisitors('p', Q);
    expect(requests.map((r) => r.status)).toEqual([null, 500, 200]);
    expect(requests[0]?.errorCode).toMatch(/^(ECONNRESET|UND_ERR_SOCKET)$/);
    expect(requests[0]?.reached).toBe(true);
    expect(requests[1]?.errorCode).toBe('E_HTTP');
    expect(requests[2]?.errorCode).toBeUndefined();
    for (const r of requests) {
      expect(r.endpoint).toBe('visitors');
      expect(r.projectId).toBe('p');
    }
    // The duration covers the server's delay: the timer started before the request was sent.
    // (A timer may fire up to 1 ms early by the clock that measures it.)
    expect(requests[1]?.durationMs).toBeGreaterThanOrEqual(149);
    expect(requests[2]?.durationMs).toBeGreaterThanOrEqual(99);
    expect(requests.map((r) => r.at)).toEqual([...requests.map((r) => r.at)].sort((a, b) => a - b));
    // Attempts follow one another: each is sent after the previous one ended.
    for (let i = 1; i < requests.length; i++) {
      const prev = requests[i - 1];
      expect(requests[i]?.at).toBeGreaterThanOrEqual((prev?.at ?? 0) + (prev?.durationMs ?? 0) - 2);
    }
  });

  it('sends every attempt through the budget', async () => {
    const server = await scripted(json(500, { error: 'x' }), json(200, PAGE));
    const { client, budget } = setup(server.url, { budget: new RequestBudget(rateLimit(10, 60_000)) });
    await client.getVisitors('p', Q);
    expect(budget.spentInWindow()).toBe(2);
  });

  it('stops retrying when the caller aborts', async () => {
    const server = await scripted(json(503, { error: 'down' }));
    const ac = new AbortController();
    let attempts = 0;
    const { client } = setup(server.url, {
      maxAttempts: 50,
      backoff: { minMs: 50, maxMs: 100 },
      // The caller aborts as the second attempt ends: no third may be sent.
      onRequest: () => {
        if (++attempts === 2) ac.abort(new Error('user cancelled'));
      },
    });
    await expect(client.getVisitors('p', Q, { signal: ac.signal })).rejects.toThrow('user cancelled');
    expect(server.seen).toHaveLength(2);
    expect(attempts).toBe(2);
  });

  it('gives a refused connection back to the budget: 3 attempts, none counted, none in the ledger events', async () => {
    const closed = await scripted(json(200, PAGE));
    const url = closed.url;
    const server = servers.pop() as Server;
    await new Promise((r) => server.close(r));
    const { client, budget, requests } = setup(url, { budget: new RequestBudget(rateLimit(10, 60_000)) });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as UnreachableError).baseUrl).toBe(url);
    expect(requests.map((r) => r.reached)).toEqual([false, false, false]);
    expect(budget.spentInWindow()).toBe(0);
  });

  it('refuses a body over the size cap without reading the rest, and does not retry it', async () => {
    const server = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write('x'.repeat(1024)), 1);
      res.on('close', () => clearInterval(timer));
    });
    const { client } = setup(server.url, { maxBodyBytes: 8 * 1024 });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toMatch(
      /sent a response body over the 8 KiB limit; it was not read further/,
    );
    expect(server.seen).toHaveLength(1);
  });

  it('ends an attempt at its overall deadline even while bytes keep trickling in', async () => {
    const server = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    const { client } = setup(server.url, { requestTimeoutMs: 200, maxAttempts: 2 });
    const err = await client.getVisitors('p', Q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/no complete response within 200 ms/);
    expect(server.seen).toHaveLength(2);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(
      () =>
        new MintlifyClient({
          baseUrl: 'ftp://example.com',
          apiKey: new ApiKey(KEY),
          budget: new RequestBudget(rateLimit(1, 1_000)),
        }),
    ).toThrow(/must start with https:\/\//);
  });
});

describe('MintlifyClient against the emulator', () => {
  let emulator: Emulator | undefined;

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  /** Pages one day the way the extractor does: limit 250, offset += 250 while hasMore. */
  async function fetchDay(client: MintlifyClient, projectId: string, day: string) {
    const rows: VisitorsPage['visitors'] = [];
    let totals: VisitorsPage['totals'] | undefined;
    for (let offset = 0; ; offset += 250) {
      const page = await client.getVisitors(projectId, {
        dateFrom: day,
        dateTo: addDays(day, 1),
        limit: 250,
        offset,
      });
      totals ??= page.totals;
      rows.push(...page.visitors);
      if (!page.hasMore || page.visitors.length === 0) break;
    }
    return { totals, rows };
  }

  it('pages through days of 0/250/251 rows', async () => {
    emulator = await startEmulator({ seed: 7, days: 30, paths: 600, apiKey: KEY });
    const { client } = setup(emulator.url);
    const { empty, rows250, rows251 } = emulator.dataset.edgeDays;
    const expected = { [empty]: [0, 1], [rows250]: [250, 1], [rows251]: [251, 2] };
    for (const [day, [rowCount, requests]] of Object.entries(expected)) {
      emulator.resetStats();
      const got = await fetchDay(client, emulator.projectId, day);
      expect(got.rows, day).toHaveLength(rowCount ?? -1);
      expect(got.rows, day).toEqual(emulator.dataset.pages(day));
      expect(got.totals, day).toEqual(emulator.dataset.site(day));
      expect(emulator.stats.requests, day).toBe(requests);
    }
  });

  it('survives faults 0.3 with exactly the truth', async () => {
    emulator = await startEmulator({
      seed: 11,
      days: 20,
      paths: 600,
      apiKey: KEY,
      faults: 0.3,
      faultSeed: 5,
      retryAfterSeconds: 0.05,
      slowMs: 20,
    });
    // A short window keeps hint-less 429 pauses (pauseForServerLimit) brief.
    const { client, retries } = setup(emulator.url, {
      budget: new RequestBudget(rateLimit(10_000, 50)),
      maxAttempts: 6,
    });
    const { empty, rows250, rows251, rows500 } = emulator.dataset.edgeDays;
    const days = [...new Set([empty, rows250, rows251, rows500, ...emulator.dataset.days])];
    for (const day of days) {
      const got = await fetchDay(client, emulator.projectId, day);
      expect(got.rows, day).toEqual(emulator.dataset.pages(day));
      expect(got.totals, day).toEqual(emulator.dataset.site(day));
    }
    // With this seed every kind shows up (resets, HTML 502, 429 in both Retry-After forms...).
    expect(Object.keys(emulator.stats.faultsByKind).length).toBeGreaterThanOrEqual(4);
    expect(emulator.stats.faults).toBeGreaterThan(0);
    expect(retries.length).toBe(emulator.stats.faults);
  });
});
