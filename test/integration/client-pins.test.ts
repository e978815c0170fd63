import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Pool } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestBudget } from '../../src/api/budget.js';
import { MintlifyClient, type MintlifyClientOptions } from '../../src/api/client.js';
import { ApiKey } from '../../src/api/key.js';
import { NetworkError } from '../../src/errors.js';

const KEY = 'mint_client_pins_secret_0123456789';
const Q = { dateFrom: '2025-01-01', dateTo: '2025-01-02', limit: 250, offset: 0 };
const PAGE = {
  totals: { human: 10, ai: 3, total: 12 },
  visitors: [{ path: '/intro', human: 10, ai: 3, total: 12 }],
  hasMore: false,
};

let servers: Server[] = [];
let clients: MintlifyClient[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  clients = [];
});

function client(baseUrl: string, overrides: Partial<MintlifyClientOptions> = {}): MintlifyClient {
  const c = new MintlifyClient({
    baseUrl,
    apiKey: new ApiKey(KEY),
    budget: new RequestBudget({ limit: 1_000, windowMs: 1_000, text: '1000/1s' }),
    backoff: { minMs: 5, maxMs: 20 },
    ...overrides,
  });
  clients.push(c);
  return c;
}

/** Every way an error may end up in a log, a terminal or a JSON summary. */
function renderings(err: unknown): string[] {
  const e = err as Error & { cause?: unknown };
  return [
    e.message,
    String(e),
    e.stack ?? '',
    JSON.stringify(e),
    JSON.stringify(e, Object.getOwnPropertyNames(e)),
    inspect(e, { depth: 10 }),
    inspect(e, { depth: 10, showHidden: true }),
    String(e.cause),
    JSON.stringify(e.cause),
    inspect(e.cause, { depth: 10, showHidden: true }),
  ];
}

describe('MintlifyClient pins', () => {
  it('keeps the API key out of a network failure whose transport message quoted it', async () => {
    // A proxy or a TLS library may echo request headers into its error text: the client must not
    // pass that text on, neither in its own error nor in the cause it keeps.
    vi.spyOn(Pool.prototype, 'request').mockRejectedValue(
      Object.assign(new Error(`socket hang up near Bearer ${KEY}`), { code: 'ECONNRESET' }),
    );
    const err = await client('http://127.0.0.1:9', { maxAttempts: 1 })
      .getVisitors('p', Q)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).cause).toBeDefined();
    for (const text of renderings(err)) expect(text).not.toContain(KEY);
    // The message is still there, with the key masked: the failure stays explainable.
    expect(inspect((err as Error).cause)).toContain('socket hang up near Bearer mint_****');
  });

  it("waits exactly a 503's Retry-After before trying again, like a 429's", async () => {
    let n = 0;
    const server = createServer((_req, res) => {
      if (n++ === 0) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: 'maintenance' }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(PAGE));
      }
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    // The injected sleep returns at once: what is checked is the wait asked for, not the clock.
    const waits: number[] = [];
    const c = client(`http://127.0.0.1:${port}`, {
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    await expect(c.getVisitors('p', Q)).resolves.toEqual(PAGE);
    expect(n).toBe(2);
    expect(waits).toEqual([1_000]);
  });
});
