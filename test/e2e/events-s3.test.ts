import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, holdBack, type EventStreamObject } from '../../src/emulator/events/index.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';
import {
  expectEventsExact,
  expectEventViewsExact,
  expectLedgerExact,
  reading,
  type EventsJson,
} from '../helpers/event-checks.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

/*
 * sync --events s3://BUCKET/PREFIX against a real S3-protocol server (moto) through the standard
 * AWS environment (AWS_ENDPOINT_URL_S3, path-style): exact, incremental, and no more S3 requests
 * than it must: ceil(new keys / 1000) + 1 listing pages and one read per new object.
 */

const BUCKET = 'acme-analytics';
const PREFIX = 'mintlify/events';
const PROJECT = 'proj_s3';
const stream = generateEventStream({ seed: 41, days: 14, endDay: '2026-11-20', prefix: PREFIX });
const { first, held } = holdBack(stream, 2);
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  // Another prefix in the same bucket: never listed, never read.
  await s3.put(BUCKET, 'other/2026-11-19T00:00:00.000Z.jsonl', '{"eventType":"x"}\n');
});
afterAll(async () => {
  await s3?.stop();
});

async function upload(objects: readonly EventStreamObject[]): Promise<void> {
  for (const o of objects) await s3.put(BUCKET, o.key, o.body);
}

async function sync(db: string): Promise<EventsJson> {
  const r = await runCli(
    ['sync', '--streams', 'events', '--events', `s3://${BUCKET}/${PREFIX}`, '--db', db, '--json'],
    { MINTLIFY_PROJECT_ID: PROJECT, ...s3.env },
  );
  // One summary line: no SDK warning about Node 20 on a user's terminal.
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/warning/i);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { events: EventsJson }).events;
}

describe('sync --events from S3', () => {
  const db = tempDbPath();
  const place = placeOf(parseDbTarget(db));

  it('loads every object once with its events exact, in one listing page', async () => {
    await upload(first.objects);
    const e = await sync(db);
    expect(e).toMatchObject({
      loaded: first.objects.length,
      getRequests: first.objects.length,
      listRequests: 1,
      newEvents: first.truth.events.length,
    });
    await reading(place, async (s) => {
      await expectEventsExact(s, first, PROJECT, `${PREFIX}/`);
      await expectLedgerExact(s, first, PROJECT, `${PREFIX}/`);
    });
  });

  it('reads no object when nothing is new', async () => {
    expect(await sync(db)).toMatchObject({ loaded: 0, getRequests: 0, listRequests: 1 });
  });

  it('reads exactly the two new objects and the late one, and the views are exact', async () => {
    await upload(held);
    const e = await sync(db);
    expect(e).toMatchObject({ loaded: 3, getRequests: 3 });
    expect(e.listRequests).toBeLessThanOrEqual(Math.ceil(3 / 1000) + 1);
    await reading(place, async (s) => {
      await expectEventsExact(s, stream, PROJECT, `${PREFIX}/`);
      await expectEventViewsExact(s, stream, PROJECT);
    });
  });
});

describe('an S3 endpoint that cannot be reached', () => {
  it('exits 4 within its bound, naming the endpoint, and records the run as failed', async () => {
    const db = tempDbPath();
    const r = await runCli(
      ['sync', '--streams', 'events', '--events', `s3://${BUCKET}/${PREFIX}`, '--db', db],
      {
        MINTLIFY_PROJECT_ID: PROJECT,
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1',
        AWS_ACCESS_KEY_ID: 'test-access-key',
        AWS_SECRET_ACCESS_KEY: 'test-secret-key',
      },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('http://127.0.0.1:1 could not be reached');
    expect(r.stderr).not.toContain('test-secret-key');
    const runs = await reading(placeOf(parseDbTarget(db)), (s) =>
      s.rows('SELECT status, error FROM sync_runs'),
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]?.['status']).toBe('failed');
    expect(String(runs[0]?.['error'])).toContain('could not be reached');
  });
});
