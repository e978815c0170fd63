import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/api/budget.js';
import { MintlifyClient } from '../../src/api/client.js';
import { ApiKey } from '../../src/api/key.js';
import { apiUrl } from '../../src/cli/options.js';
import { UsageError } from '../../src/errors.js';

describe('the API URL', () => {
  it('defaults to the service and takes MINTLIFY_API_URL or the flag', () => {
    expect(apiUrl(undefined, {})).toBe('https://api.mintlify.com');
    expect(apiUrl(undefined, { MINTLIFY_API_URL: 'https://eu.example.com/' })).toBe('https://eu.example.com');
    expect(apiUrl('https://flag.example.com', { MINTLIFY_API_URL: 'https://env.example.com' })).toBe(
      'https://flag.example.com',
    );
  });

  it('keeps a proxy path prefix, without its trailing slash', () => {
    expect(apiUrl('https://proxy.example.com/mintlify/', {})).toBe('https://proxy.example.com/mintlify');
  });

  it.each(['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.5.6.7'])(
    'allows plain http to this machine: %s',
    (url) => {
      expect(apiUrl(url, {})).toBe(url);
    },
  );

  it.each([
    ['http://api.mintlify.com', /would send the API key unencrypted: use https/],
    ['http://10.0.0.5:8080', /would send the API key unencrypted/],
    ['ftp://api.mintlify.com', /must start with https/],
    ['not a url', /is not a URL/],
    ['https://user:secret@api.mintlify.com', /may not carry a user, password, query or fragment/],
    ['https://api.mintlify.com/?token=x', /may not carry a user, password, query or fragment/],
  ])('refuses %s as a usage error', (url, message) => {
    expect(() => apiUrl(url, {})).toThrow(UsageError);
    expect(() => apiUrl(url, {})).toThrow(message);
    try {
      apiUrl(url, {});
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
  });

  it('sends requests below the path prefix', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"totals":{"human":0,"ai":0,"total":0},"visitors":[],"hasMore":false}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const client = new MintlifyClient({
      baseUrl: apiUrl(`http://127.0.0.1:${port}/proxy/mintlify/`, {}),
      apiKey: new ApiKey('mint_test'),
      budget: new RequestBudget({ limit: 10, windowMs: 1_000, text: '10/1s' }),
    });
    try {
      await client.getVisitors('p1', { dateFrom: '2026-01-01', dateTo: '2026-01-02', limit: 250, offset: 0 });
    } finally {
      await client.close();
      await new Promise((r) => server.close(r));
    }
    expect(seen).toEqual([
      '/proxy/mintlify/v1/analytics/p1/visitors?dateFrom=2026-01-01&dateTo=2026-01-02&limit=250&offset=0',
    ]);
  });
});
