import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateApiKey } from '../../src/api/key.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { visitors } from '../../src/streams/visitors.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';
import { tempDbPath } from '../helpers/db.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
let servers: Server[] = [];

afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

/** A loopback server that accepts every connection; `answer` decides what, if anything, it sends. */
async function server(answer: (res: ServerResponse) => void): Promise<{
  url: string;
  arrived: () => number;
}> {
  let n = 0;
  const s = createServer((_req, res) => {
    n++;
    answer(res);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, arrived: () => n };
}

function options(apiUrl: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return {
    projects: ['docs'],
    lookback: 0,
    dbPath: tempDbPath(),
    rateLimit: parseRateLimit('100000/1h'),
    maxWaitMs: 60_000,
    concurrency: 1,
    includeToday: false,
    dryRun: false,
    apiUrl,
    apiKey: validateApiKey('mint_hung_server_key_0123456789', 'test key'),
    logger: silentLogger,
    streams: [visitors],
    now: () => NOW,
    from: '2026-03-01',
    to: '2026-03-06',
    backoff: { minMs: 5, maxMs: 20 },
    idleCloseMs: 50,
    // Short injected timeouts: the headers one fires first; the overall one bounds the old client.
    timeouts: { connectMs: 1_000, headersMs: 100, bodyMs: 100 },
    requestTimeoutMs: 300,
    ...over,
  };
}

describe('a server that accepts connections and never answers', () => {
  it('stops the run after two requests without response headers, defers every window and exits 4', async () => {
    const hung = await server(() => {});
    const s = await runSync(options(hung.url));
    expect(hung.arrived()).toBe(2);
    expect(s.requests).toBe(2);
    expect(s.stopReason).toBe('unresponsive');
    expect(s.exitCode).toBe(4);
    expect(s.windows).toMatchObject({ planned: 5, loaded: 0, failed: 0, deferred: 5 });
    expect(s.error).toContain(`the API at ${hung.url} accepts connections but does not answer (no response`);
    expect(s.error).toContain('5 window(s) deferred to the next run');
  });

  it('with four windows in flight stops at the first timeouts instead of four times six', async () => {
    const hung = await server(() => {});
    const s = await runSync(options(hung.url, { concurrency: 4 }));
    expect(hung.arrived()).toBeLessThanOrEqual(4);
    expect(s.stopReason).toBe('unresponsive');
    expect(s.windows.deferred).toBe(5);
  });

  it('keeps retrying a body that stalls after the headers: that server answers, slowly', async () => {
    const stalls = await server((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"totals":');
    });
    const s = await runSync(options(stalls.url, { to: '2026-03-02' }));
    expect(s.stopReason).toBeNull();
    expect(stalls.arrived()).toBe(6);
    expect(s.windows).toMatchObject({ planned: 1, failed: 1 });
    expect(s.exitCode).toBe(4);
  });
});
