import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openEventSource, type EventSource } from '../../src/sources/events/event-source.js';
import { readLines } from '../../src/sources/events/object-lines.js';
import type { EventObject } from '../../src/sources/events/types.js';
import { freePort } from '../helpers/postgres.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

let s3: S3Server;
const BUCKET = 'mintlify-events';
// S3 lists in UTF-8 byte order; U+FF5E sorts before U+1F600 there (not in UTF-16).
const KEYS = [
  '2026-11-25T08:00:00Z.jsonl',
  '2026-11-26T08:00:00Z.jsonl',
  '2026-11-26T08:00:00Z/\uff5e.jsonl',
  '2026-11-26T08:00:00Z/\u{1F600}.jsonl',
  '2026-11-27T08:00:00Z.jsonl',
  '2026-11-27T09:00:00Z.jsonl.gz',
  '2026-11-27T10:00:00Z.jsonl',
];
const line = (key: string): string =>
  JSON.stringify({ eventType: 'docs.content.view', payload: { event_id: key } });

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  for (const key of KEYS) await s3.put(BUCKET, `stream/${key}`, `${line(key)}\n`);
  await s3.put(BUCKET, 'stream/', ''); // a console-made "folder"
  await s3.put(BUCKET, 'other/2026-11-27T08:00:00Z.jsonl', 'not ours\n');
  await s3.put(BUCKET, 'streamed/x.jsonl', 'not ours either\n');
  // Gzip named .jsonl, two members.
  await s3.put(
    BUCKET,
    'gz/2026-11-27T11:00:00Z.jsonl',
    Buffer.concat([gzipSync('{"a":1}\r\n'), gzipSync('{"b":2}')]),
  );
}, 60_000);
afterAll(async () => s3?.stop());
afterEach(() => vi.unstubAllEnvs());

function useServer(): void {
  for (const [k, v] of Object.entries(s3.env)) vi.stubEnv(k, v);
}

async function keysOf(source: EventSource, startAfter?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of source.list(startAfter)) out.push(o.key);
  return out;
}

describe('an S3 bucket as the event source (moto_server)', () => {
  it('lists the keys under the prefix in UTF-8 byte order, relative to it, labelled without credentials', async () => {
    useServer();
    const source = await openEventSource(`s3://${BUCKET}/stream`);
    expect(source.label).toBe(`s3://${BUCKET}/stream/`);
    expect(await keysOf(source)).toEqual(KEYS);
    expect(source.label).not.toContain(s3.env['AWS_SECRET_ACCESS_KEY']);
    source.close();
  });

  it('lists only the keys after startAfter', async () => {
    useServer();
    const source = await openEventSource(`s3://${BUCKET}/stream/`);
    expect(await keysOf(source, KEYS[2])).toEqual(KEYS.slice(3));
    expect(await keysOf(source, KEYS.at(-1))).toEqual([]);
    source.close();
  });

  it('pages with the continuation token, one list request per page', async () => {
    useServer();
    for (const pageSize of [2, 3, 7, 1000]) {
      const source = await openEventSource(`s3://${BUCKET}/stream`, { maxKeys: pageSize });
      expect(await keysOf(source)).toEqual(KEYS);
      const pages = Math.ceil(KEYS.length / pageSize);
      // A full last page may be reported truncated: one more (empty) page then.
      expect(source.stats.listRequests, `pages of ${pageSize}`).toBeGreaterThanOrEqual(pages);
      expect(source.stats.listRequests, `pages of ${pageSize}`).toBeLessThanOrEqual(pages + 1);
      expect(source.stats.getRequests).toBe(0);
      source.close();
    }
  });

  it('reads an object, and a gzip object named .jsonl by its bytes', async () => {
    useServer();
    const source = await openEventSource(`s3://${BUCKET}`);
    const objects: EventObject[] = [];
    for await (const o of source.list('gz/')) if (o.key.startsWith('gz/')) objects.push(o);
    expect(objects).toHaveLength(1);
    expect(objects[0]!.etag).toMatch(/^[0-9a-f]{32}(-\d+)?$/);
    const lines: string[] = [];
    for await (const b of readLines(await source.open(objects[0]!))) lines.push(...b.lines);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);

    const plain = await openEventSource(`s3://${BUCKET}/stream`);
    let first: EventObject | undefined;
    for await (const o of plain.list()) {
      first = o;
      break;
    }
    const got: string[] = [];
    for await (const b of readLines(await plain.open(first!))) got.push(...b.lines);
    expect(got).toEqual([line(KEYS[0]!)]);
    expect(plain.stats.getRequests).toBe(1);
    source.close();
    plain.close();
  });

  it('says an object that changed since it was listed is gone, not half-read', async () => {
    useServer();
    const source = await openEventSource(`s3://${BUCKET}/stream`);
    await expect(
      source.open({ key: KEYS[0]!, size: 1, etag: '00000000000000000000000000000000' }),
    ).rejects.toMatchObject({
      code: 'E_EVENT_OBJECT_GONE',
    });
    await expect(source.open({ key: 'no-such-key.jsonl', size: 1, etag: null })).rejects.toMatchObject({
      code: 'E_EVENT_OBJECT_GONE',
    });
    source.close();
  });

  it('stops with exit 2 on a bucket that does not exist', async () => {
    useServer();
    const source = await openEventSource('s3://no-such-bucket-here/stream');
    const error = await keysOf(source).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_EVENTS_SOURCE', exitCode: 2 });
    expect((error as Error).message).toMatch(/no such bucket/);
    source.close();
  });

  it('stops with exit 3 naming the variables to set when there are no credentials', async () => {
    useServer();
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    vi.stubEnv('AWS_PROFILE', '');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/credentials');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/config');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('AWS_CONTAINER_CREDENTIALS_FULL_URI', '');
    vi.stubEnv('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', '');
    vi.stubEnv('AWS_WEB_IDENTITY_TOKEN_FILE', '');
    const source = await openEventSource(`s3://${BUCKET}/stream`);
    const error = await keysOf(source).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_EVENTS_AUTH', exitCode: 3 });
    expect((error as Error).message).toMatch(/AWS_ACCESS_KEY_ID.*AWS_SECRET_ACCESS_KEY.*AWS_PROFILE/);
    source.close();
  });

  it('refuses credentials written into the S3 URL without echoing them', async () => {
    const error = await openEventSource('s3://AKIAEXAMPLE:SeCrEtKeY@bucket/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2 });
    expect(
      JSON.stringify({ m: (error as Error).message, c: (error as { context: unknown }).context }),
    ).not.toMatch(/SeCrEtKeY/);
  });
});

describe('an S3 endpoint that does not answer', () => {
  let hung: Server;
  const sockets: Socket[] = [];
  afterAll(() => {
    for (const s of sockets) s.destroy();
    hung?.close();
  });

  it('fails with a retryable coded error within a bound when nothing listens', async () => {
    useServer();
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${await freePort()}`);
    const started = Date.now();
    const source = await openEventSource(`s3://${BUCKET}/stream`, { connectionTimeoutMs: 1000 });
    const error = await keysOf(source).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_EVENTS_UNREACHABLE', retryable: true });
    expect((error as Error).message).not.toContain(s3.env['AWS_SECRET_ACCESS_KEY']);
    expect(Date.now() - started).toBeLessThan(15_000);
    source.close();
  });

  it('fails within the request timeout when the server accepts and never answers', async () => {
    hung = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = (hung.address() as { port: number }).port;
    useServer();
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${port}`);
    const started = Date.now();
    const source = await openEventSource(`s3://${BUCKET}/stream`, { requestTimeoutMs: 500, maxAttempts: 2 });
    const error = await keysOf(source).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_EVENTS_UNREACHABLE' });
    expect(Date.now() - started).toBeLessThan(10_000);
    source.close();
  });

  it('fails with a coded error within the bound when a body stops mid-object', async () => {
    const stalled = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-length': '100000', etag: '"abc"' });
      res.write('{"a":1}\n{"b":');
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    useServer();
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${(stalled.address() as { port: number }).port}`);
    const source = await openEventSource(`s3://${BUCKET}/stream`, { requestTimeoutMs: 500, maxAttempts: 1 });
    const started = Date.now();
    const body = await source.open({ key: 'a.jsonl', size: 100_000, etag: null });
    const lines: string[] = [];
    const error = await (async () => {
      for await (const b of readLines(body)) lines.push(...b.lines);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_EVENTS_UNREACHABLE' });
    expect(Date.now() - started).toBeLessThan(10_000);
    source.close();
    stalled.closeAllConnections();
    stalled.close();
  });

  it('stops at once when the caller aborts', async () => {
    useServer();
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${(hung.address() as { port: number }).port}`);
    const abort = new AbortController();
    const source = await openEventSource(`s3://${BUCKET}/stream`, {
      signal: abort.signal,
      requestTimeoutMs: 60_000,
    });
    const started = Date.now();
    const pending = keysOf(source).catch((e: unknown) => e);
    setTimeout(() => abort.abort(), 200);
    const error = await pending;
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(5000);
    source.close();
  });
});
