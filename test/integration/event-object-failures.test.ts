import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Place } from '../../src/load/destination.js';
import { runSync, type SyncOptions, type SyncSummary } from '../../src/pipeline/sync.js';
import { gatherStatus, statusSourceOf } from '../../src/pipeline/status.js';
import { formatStatus } from '../../src/pipeline/status-format.js';
import type { ReadBoundsOptions } from '../../src/sources/events/read-bounds.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { safeText } from '../../src/util/safe-text.js';
import { eventOnlySyncOptions } from '../helpers/event-sync-options.js';
import { eventTargets, reading } from '../helpers/event-checks.js';
import { startS3FaultProxy, type S3FaultProxy } from '../helpers/s3-fault-proxy.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

/*
 * An object of the event stream that cannot be read (a damaged gzip: truncated, trailing bytes, a
 * bad CRC; an archived object; a 403 on that object alone; a server too slow for its size) never
 * stops the objects after it: it is recorded in event_object_failures with its real cause, the run
 * ends with exit 4 naming it, and later runs read it again by key, even far behind where the
 * listing starts, until it loads (the row goes) or a user skips it on purpose. Against a real S3
 * server (moto, behind a fault proxy for the 403 and the trickle), on both destinations.
 */

const PROJECT = 'proj_fail';
const PREFIX = 'stream';
let s3: S3Server;
let proxy: S3FaultProxy;
let client: S3Client;
const { targets, stop } = eventTargets();

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startS3FaultProxy(s3.url);
  client = new S3Client({
    endpoint: s3.url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key' },
  });
  // The run's S3 client reads the standard environment: through the proxy.
  Object.assign(process.env, { ...s3.env, AWS_ENDPOINT_URL_S3: proxy.url });
}, 60_000);
afterAll(async () => {
  client?.destroy();
  await proxy?.stop();
  await s3?.stop();
  await stop();
});

/** A line of the stream; one in each object carries a 30,000-character assistant answer. */
function line(id: string, day: string, i: number): string {
  const answer = i === 0 ? 'é🙂 answer '.repeat(2_500).slice(0, 30_000) : 'short';
  return JSON.stringify({
    eventType: i === 0 ? 'docs.assistant.completed' : 'docs.content.view',
    payload: {
      event_id: id,
      subdomain: 'docs',
      created_at: `${day}T10:00:0${i % 10}.123456Z`,
      event: i === 0 ? 'docs.assistant.completed' : 'docs.content.view',
      path: '/page',
      user_agent: 'Mozilla/5.0',
      anon_id: `anon-${i}`,
      properties: { answer, question: 'why?\u2028' },
    },
  });
}

function body(name: string, day: string, n = 3): Buffer {
  return Buffer.from(
    Array.from({ length: n }, (_, i) => line(`${name}-${i}`, day, i)).join('\n') + '\n',
    'utf8',
  );
}

const DAY = '2026-11-10';
const LATER = '2026-11-20';
const key = (day: string, name: string): string => `${day.replaceAll('-', '/')}/${day}T${name}.jsonl`;

function damaged(kind: 'truncated' | 'trailing' | 'crc', b: Buffer): Buffer {
  const g = gzipSync(b);
  if (kind === 'truncated') return g.subarray(0, g.length - 20);
  if (kind === 'trailing') return Buffer.concat([g, Buffer.from('trailing bytes')]);
  const c = Buffer.from(g);
  c[c.length - 6] = (c[c.length - 6] ?? 0) ^ 0xff;
  return c;
}

async function put(bucket: string, k: string, b: Buffer, storageClass?: 'GLACIER'): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: `${PREFIX}/${k}`,
      Body: b,
      ...(storageClass === undefined ? {} : { StorageClass: storageClass }),
    }),
  );
}

function options(
  place: Place,
  bucket: string,
  over: Partial<SyncOptions> = {},
  events: { skip?: string[]; read?: string[]; bounds?: ReadBoundsOptions } = {},
): SyncOptions {
  return eventOnlySyncOptions(PROJECT, {
    place,
    events: {
      source: `s3://${bucket}/${PREFIX}`,
      skipObjects: events.skip,
      readObjects: events.read,
      readBounds: events.bounds,
    },
    ...over,
  });
}

interface FailureRow {
  object_key: string;
  status: string;
  code: string;
  cause: string;
  attempts: number;
  etag: string | null;
}

async function failureRows(place: Place): Promise<FailureRow[]> {
  return (await reading(place, (s) =>
    s.rows(
      'SELECT object_key, status, code, cause, attempts, etag FROM event_object_failures ORDER BY object_key',
    ),
  )) as unknown as FailureRow[];
}

async function storedIds(place: Place): Promise<string[]> {
  const rows = await reading(place, (s) =>
    s.rows('SELECT event_id FROM analytics_events ORDER BY event_id COLLATE "C"'),
  );
  return rows.map((r) => String(r['event_id']));
}

const ids = (...names: string[]): string[] =>
  names.flatMap((n) => [0, 1, 2].map((i) => `${n}-${i}`)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const K = {
  a: key(DAY, '01'),
  truncated: key(DAY, '02'),
  b: key(DAY, '03'),
  trailing: key(DAY, '04'),
  crc: key(DAY, '05'),
  archived: key(DAY, '06'),
  forbidden: key(DAY, '07'),
  c: key(DAY, '08'),
  late: key(LATER, '01'),
};

describe.each(targets)('event objects that cannot be read, into %s', (name, target) => {
  const bucket = `fail-${name.toLowerCase()}`;
  let place: Place;
  let first: SyncSummary;

  beforeAll(async () => {
    place = (await target()).place;
    await s3.createBucket(bucket);
    await put(bucket, K.a, body('a', DAY));
    await put(bucket, K.truncated, damaged('truncated', body('t', DAY)));
    await put(bucket, K.b, gzipSync(body('b', DAY)));
    await put(bucket, K.trailing, damaged('trailing', body('r', DAY)));
    await put(bucket, K.crc, damaged('crc', body('x', DAY)));
    await put(bucket, K.archived, body('g', DAY), 'GLACIER');
    await put(bucket, K.forbidden, body('f', DAY));
    await put(bucket, K.c, body('c', DAY));
    // Five days later: the next listing starts after it, far past the failed objects.
    await put(bucket, K.late, body('l', LATER));
    proxy.faults.set(`${PREFIX}/${K.forbidden}`, { kind: 'forbidden' });
    first = await runSync(options(place, bucket));
  }, 60_000);

  it('loads every readable object past the ones that fail, and ends with exit 4 naming each with its real cause', async () => {
    expect(first.exitCode).toBe(4);
    expect(first.status).toBe('incomplete');
    expect(first.events).toMatchObject({ listed: 9, loaded: 4, failed: 5 });
    expect(await storedIds(place)).toEqual(ids('a', 'b', 'c', 'l'));
    const byKey = Object.fromEntries((first.events?.failedObjects ?? []).map((f) => [f.key, f]));
    expect(Object.keys(byKey).sort()).toEqual(
      [K.truncated, K.trailing, K.crc, K.archived, K.forbidden].sort(),
    );
    expect(byKey[K.truncated]).toMatchObject({ code: 'E_EVENT_OBJECT_DAMAGED', attempts: 1 });
    expect(byKey[K.truncated]?.cause).toMatch(/gzip object is damaged: unexpected end of file/);
    expect(byKey[K.trailing]).toMatchObject({ code: 'E_EVENT_OBJECT_DAMAGED' });
    expect(byKey[K.crc]?.cause).toMatch(/incorrect data check/);
    expect(byKey[K.archived]).toMatchObject({ code: 'E_EVENT_OBJECT_ARCHIVED' });
    expect(byKey[K.archived]?.cause).toMatch(/archived \(InvalidObjectState/);
    expect(byKey[K.forbidden]).toMatchObject({ code: 'E_EVENT_OBJECT_FORBIDDEN' });
    expect(byKey[K.forbidden]?.cause).toMatch(/refused \(AccessDenied, HTTP 403\)/);
    // Never the credentials' fault: the listing was allowed.
    expect(JSON.stringify(first)).not.toMatch(/refused the credentials|test-secret-key/);
    const rows = await failureRows(place);
    expect(rows.map((r) => [r.object_key, r.status, r.code, Number(r.attempts)])).toEqual(
      [
        [K.truncated, 'failing', 'E_EVENT_OBJECT_DAMAGED', 1],
        [K.trailing, 'failing', 'E_EVENT_OBJECT_DAMAGED', 1],
        [K.crc, 'failing', 'E_EVENT_OBJECT_DAMAGED', 1],
        [K.archived, 'failing', 'E_EVENT_OBJECT_ARCHIVED', 1],
        [K.forbidden, 'failing', 'E_EVENT_OBJECT_FORBIDDEN', 1],
      ].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)),
    );
    expect(rows.every((r) => r.etag !== null && !r.cause.includes(K.truncated))).toBe(true);
  });

  it('reads every failure again by key on the next run, far behind the listing start: a fixed one loads and its row goes', async () => {
    // The truncated object is uploaded again whole (a new ETag); the 403 is lifted.
    await put(bucket, K.truncated, body('t', DAY));
    proxy.faults.delete(`${PREFIX}/${K.forbidden}`);
    const s = await runSync(options(place, bucket));
    expect(s.exitCode).toBe(4);
    expect(s.events).toMatchObject({ retried: 5, loaded: 2, failed: 3 });
    expect(await storedIds(place)).toEqual(ids('a', 'b', 'c', 'f', 'l', 't'));
    const rows = await failureRows(place);
    expect(rows.map((r) => [r.object_key, Number(r.attempts)])).toEqual(
      [
        [K.trailing, 2],
        [K.crc, 2],
        [K.archived, 2],
      ].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)),
    );
  });

  it('lists the failing objects in status, each with its cause and attempts', async () => {
    const dest = await place.open('read');
    let text: string;
    try {
      text = formatStatus(await gatherStatus(statusSourceOf(dest), { rateLimit: parseRateLimit('100/1h') }));
    } finally {
      await dest.close();
    }
    const failing = safeText(text)
      .split('\n')
      .filter((l) => l.includes(DAY));
    expect(failing.some((l) => l.includes(K.archived) && /archived.*2 attempts/.test(l))).toBe(true);
    expect(failing.some((l) => l.includes(K.crc) && /incorrect data check/.test(l))).toBe(true);
  });

  it('skips an object on purpose with --events-skip (never read again), and reads it again with --events-read', async () => {
    const path = `${PREFIX}/${K.crc}`;
    const gets = (): number => proxy.gets.get(path) ?? 0;
    await runSync(options(place, bucket, {}, { skip: [K.crc] }));
    const before = gets();
    const s = await runSync(options(place, bucket));
    expect(gets()).toBe(before);
    expect(s.events?.failedObjects.map((f) => f.key).sort()).toEqual([K.archived, K.trailing].sort());
    expect((await failureRows(place)).find((r) => r.object_key === K.crc)?.status).toBe('skipped');
    // Fixed under the same key (a new ETag): read again without being asked.
    await put(bucket, K.crc, body('x', DAY));
    await runSync(options(place, bucket, {}, { skip: [K.trailing] }));
    expect(await storedIds(place)).toContain('x-0');
    const r = await runSync(options(place, bucket, {}, { read: [K.trailing] }));
    expect(r.events?.failedObjects.map((f) => f.key).sort()).toEqual([K.archived, K.trailing].sort());
    expect((await failureRows(place)).find((x) => x.object_key === K.trailing)?.status).toBe('failing');
  });

  it('bounds an object from a server that trickles its bytes: recorded as too slow within seconds, and the objects after it load', async () => {
    const slow = key(LATER, '02');
    await put(bucket, slow, body('s', LATER, 1));
    await put(bucket, key(LATER, '03'), body('n', LATER));
    proxy.faults.set(`${PREFIX}/${slow}`, { kind: 'trickle', ms: 40 });
    const t0 = Date.now();
    const s = await runSync(
      options(
        place,
        bucket,
        {},
        { skip: [K.archived, K.trailing], bounds: { minBytesPerSecond: 20_000, baseMs: 300 } },
      ),
    );
    // The object is ~30 KB: a byte every 40 ms would take 20 minutes.
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(s.events?.failedObjects).toEqual([
      expect.objectContaining({ key: slow, code: 'E_EVENT_OBJECT_SLOW' }),
    ]);
    expect(await storedIds(place)).toContain('n-0');
    proxy.faults.delete(`${PREFIX}/${slow}`);
  }, 30_000);
});
