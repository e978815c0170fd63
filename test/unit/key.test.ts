import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/api/budget.js';
import { MintlifyClient } from '../../src/api/client.js';
import { ApiKey, loadApiKey, validateApiKey } from '../../src/api/key.js';
import { AuthError, InternalError, NetworkError, UsageError, ValidationError } from '../../src/errors.js';
import { redactSecrets, SecretRegistry } from '../../src/util/secrets.js';

const SECRET = 'mint_S3CR3T_value_that_must_never_leak_0123456789';

/** Every way an error could end up in a log or a report. */
function everyRendering(err: unknown): string {
  const e = err as Error & { context?: unknown };
  return [
    String(e),
    e.message,
    e.stack ?? '',
    JSON.stringify(e),
    JSON.stringify(e.context ?? null),
    inspect(e, { depth: 10 }),
    inspect(e, { depth: 10, showHidden: true }),
  ].join('\n');
}

describe('ApiKey', () => {
  const key = new ApiKey(SECRET);

  it('never shows its value through String, JSON, inspect or a template literal', () => {
    const shown = [
      String(key),
      // The point is to prove that interpolating the key by mistake is harmless.
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions
      `${key}`,
      JSON.stringify(key),
      JSON.stringify({ nested: { key } }),
      inspect(key),
      inspect({ key }, { depth: 10, showHidden: true }),
      'key: ' + key.toString(),
    ];
    for (const text of shown) expect(text).not.toContain(SECRET);
    expect(String(key)).toBe('mint_****');
    expect(inspect(key)).toBe('ApiKey(mint_****)');
    expect(Object.keys(key)).toEqual([]);
  });

  it('keeps its value out of object spread and out of inspect without custom inspection', () => {
    const shown = [
      inspect({ ...key }, { depth: Infinity, showHidden: true }),
      inspect(key, { customInspect: false, showHidden: true, depth: Infinity }),
      JSON.stringify({ ...key }),
      JSON.stringify(Object.getOwnPropertySymbols(key)),
    ];
    for (const text of shown) expect(text).not.toContain(SECRET);
  });

  it('gives the value only through reveal()', () => {
    expect(key.reveal()).toBe(SECRET);
  });

  it('is a registered secret from the moment it exists: every output redacts it', () => {
    expect(redactSecrets(`a ${SECRET} b ${SECRET}`)).toBe('a mint_**** b mint_****');
  });
});

describe('validateApiKey', () => {
  it('accepts an admin key and trims whitespace around it', () => {
    expect(validateApiKey(`  ${SECRET}\n`, 'MINTLIFY_API_KEY').reveal()).toBe(SECRET);
  });

  it('accepts every character of a Bearer token (RFC 6750): letters, digits, - . _ ~ + / and = padding', () => {
    const value = 'mint_AZaz09-._~+/x==';
    expect(validateApiKey(value, 'MINTLIFY_API_KEY').reveal()).toBe(value);
  });

  it('names the characters a key may hold when it refuses one', () => {
    expect(() => validateApiKey('mint_abc"def', 'MINTLIFY_API_KEY')).toThrow(
      'a key holds letters, digits and - . _ ~ + / = only',
    );
  });

  it('refuses an empty key, pointing at MINTLIFY_API_KEY', () => {
    expect(() => validateApiKey('', 'MINTLIFY_API_KEY')).toThrow(UsageError);
    expect(() => validateApiKey('', 'MINTLIFY_API_KEY')).toThrow(/MINTLIFY_API_KEY is empty/);
  });

  it('refuses a value that is not shaped like a Mintlify key', () => {
    expect(() => validateApiKey('abc', 'MINTLIFY_API_KEY')).toThrow(
      /does not look like a Mintlify admin API key/,
    );
  });

  it('refuses an assistant key (mint_dsc_) and says which kind it is', () => {
    expect(() => validateApiKey('mint_dsc_x', 'MINTLIFY_API_KEY')).toThrow(
      /holds an assistant key \(it begins mint_ \+ dsc_\), not an admin key/,
    );
  });

  it('says how an admin key and the refused kind look, even once the key itself is masked in output', () => {
    for (const [key, kind] of [
      ['mint_dsc_0123456789abcdef', /an assistant key \(it begins mint_ \+ dsc_\)/],
      ['mint_us_0123456789abcdef', /an index key \(it begins mint_ \+ us_\)/],
    ] as const) {
      const registry = new SecretRegistry();
      registry.register(key, 'mint_****');
      let message = '';
      try {
        validateApiKey(key, 'MINTLIFY_API_KEY');
      } catch (e) {
        message = registry.redact((e as Error).message);
      }
      expect(message).toMatch(kind);
      expect(message).toMatch(/an admin key begins mint_ with neither dsc_ nor us_ after it/);
      expect(message).not.toContain('****');
    }
  });

  it('refuses an index key (mint_us_) and says which kind it is', () => {
    expect(() => validateApiKey('mint_us_x', 'MINTLIFY_API_KEY')).toThrow(
      /holds an index key \(it begins mint_ \+ us_\), not an admin key/,
    );
  });

  it.each([
    ['a zero-width space', 'mint_abc\u200bdef'],
    ['a space inside', 'mint_abc def'],
    ['a non-ASCII letter', 'mint_abcdéf'],
    ['a curly quote from a copy-paste', 'mint_abcdef\u201d'],
    ['a control character', 'mint_abc\u0007def'],
    ['a straight quote', 'mint_abc"def'],
    ['a backslash', 'mint_abc\\def'],
    ['a percent sign', 'mint_abc%41def'],
  ])('refuses a key with %s before any request, without repeating it', (_what, value) => {
    try {
      validateApiKey(value, 'MINTLIFY_API_KEY');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as Error).message).toMatch(/contains a character an API key cannot have/);
      expect(everyRendering(e)).not.toContain('abc');
    }
  });

  it('never repeats the refused value in the message', () => {
    const value = 'mint_dsc_0123456789abcdef';
    try {
      validateApiKey(value, 'MINTLIFY_API_KEY');
      expect.unreachable();
    } catch (e) {
      expect(everyRendering(e)).not.toContain('0123456789abcdef');
    }
  });
});

describe('loadApiKey', () => {
  it('does not echo a key passed to --api-key-file in place of a path', async () => {
    const err = await loadApiKey({ apiKeyFile: SECRET, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/takes the path of a file that holds the key, not the key itself/);
    expect(everyRendering(err)).not.toContain(SECRET.slice(5));
  });

  it('names a missing key file by its path', async () => {
    await expect(loadApiKey({ apiKeyFile: '/nonexistent/key', env: {} })).rejects.toThrow(
      '--api-key-file /nonexistent/key does not exist: check the path',
    );
  });
});

describe('errors thrown by the client never carry the key', () => {
  let server: Server | undefined;
  let client: MintlifyClient | undefined;

  afterEach(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
    client = undefined;
  });

  async function serve(status: number, body: string): Promise<{ url: string; seen: string[] }> {
    const seen: string[] = [];
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      // A hostile or buggy server echoing the credential must not get it into our errors.
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body.replaceAll('KEY', req.headers.authorization ?? ''));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  function makeClient(baseUrl: string): MintlifyClient {
    client = new MintlifyClient({
      baseUrl,
      apiKey: new ApiKey(SECRET),
      budget: new RequestBudget({ limit: 1_000, windowMs: 1_000, text: '1000/1s' }),
      maxAttempts: 2,
      backoff: { minMs: 5, maxMs: 10 },
    });
    return client;
  }

  const query = { dateFrom: '2025-01-01', dateTo: '2025-01-02', limit: 250, offset: 0 };

  it('on a 401, even when the server echoes the Authorization header', async () => {
    const { url, seen } = await serve(401, '{"error":"invalid token KEY","details":[{"message":"KEY"}]}');
    const err = await makeClient(url)
      .getVisitors('proj', query)
      .catch((e: unknown) => e);
    expect(seen).toEqual([`Bearer ${SECRET}`]);
    expect(err).toBeInstanceOf(AuthError);
    expect(everyRendering(err)).not.toContain(SECRET);
    expect((err as Error).message).toContain('server said: invalid token Bearer mint_****');
  });

  it('on a 401 whose body echoes the key JSON-escaped, every character as \\uXXXX', async () => {
    const escaped = [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const { url } = await serve(
      401,
      `{"error":"invalid token ${escaped}","details":[{"message":"${escaped}"}]}`,
    );
    const err = await makeClient(url)
      .getVisitors('proj', query)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(everyRendering(err)).not.toContain(SECRET.slice(5, 13));
    expect((err as Error).message).toContain('server said: invalid token mint_****');
  });

  it('on a network failure (connection refused)', async () => {
    const { url } = await serve(200, '{}');
    server!.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = undefined;
    const err = await makeClient(url)
      .getVisitors('proj', query)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect(everyRendering(err)).not.toContain(SECRET);
    expect(everyRendering(err)).not.toMatch(/authorization/i);
  });

  it('on a network failure mid-body (reset)', async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"totals":', () => res.socket?.destroy());
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const err = await makeClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      .getVisitors('proj', query)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(everyRendering(err)).not.toContain(SECRET);
    expect(everyRendering(err)).not.toMatch(/authorization/i);
  });

  it('on a validation failure, even when the bad body contains the key', async () => {
    const { url } = await serve(
      200,
      '{"totals":{"human":"KEY","ai":0,"total":0},"visitors":[],"hasMore":false}',
    );
    const err = await makeClient(url)
      .getVisitors('proj', query)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain('totals.human');
    expect(everyRendering(err)).not.toContain(SECRET);
  });

  it('does not show the key when the client itself is inspected, however deeply', async () => {
    const { url } = await serve(200, '{}');
    const c = makeClient(url);
    const shown = [
      inspect(c, { depth: Infinity, showHidden: true }),
      inspect(c, { depth: Infinity, showHidden: true, customInspect: false }),
      JSON.stringify(c),
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- proving a stray String() is harmless
      String(c),
    ];
    for (const text of shown) expect(text).not.toContain(SECRET);
  });

  it('fails at once, without retrying, when the key cannot go in an HTTP header', async () => {
    const { url, seen } = await serve(200, '{}');
    let attempts = 0;
    client = new MintlifyClient({
      baseUrl: url,
      // Past validateApiKey only by constructing it directly: the client is the last line.
      apiKey: new ApiKey('mint_abc\u200bdef'),
      budget: new RequestBudget({ limit: 1_000, windowMs: 1_000, text: '1000/1s' }),
      maxAttempts: 6,
      backoff: { minMs: 5, maxMs: 10 },
      onRequest: () => attempts++,
    });
    const err = await client.getVisitors('proj', query).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect((err as Error).message).toMatch(/the request could not be sent/);
    expect(attempts).toBe(1);
    expect(seen).toEqual([]);
  });
});
