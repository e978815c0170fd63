import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Place } from '../../src/load/destination.js';
import { checkEventSettings, syncEvents, type EventsSummary } from '../../src/pipeline/event-sync.js';
import { openEventSource } from '../../src/sources/events/event-source.js';
import { warningsLogger } from '../helpers/warnings-logger.js';
import { eventTargets, reading } from '../helpers/event-checks.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

/*
 * Which objects a run lists and reads, whatever the key layout under the source: two deployments
 * under their own prefixes, a key named far in the future, an object rewritten under its key; from
 * a folder and from S3 (moto), into DuckDB and PostgreSQL, in process.
 */

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

const BUCKET = 'listing';
const NOW = Date.parse('2026-11-22T06:00:00Z');
let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  Object.assign(process.env, s3.env);
}, 60_000);
const { targets, stop } = eventTargets();
afterAll(async () => {
  await s3?.stop();
  await stop();
});

/** Where objects are put and read: a fresh folder, or a fresh prefix of the bucket. */
interface Bucket {
  readonly spec: string;
  put(key: string, body: string): Promise<void>;
}

let n = 0;
const buckets: [string, () => Bucket][] = [
  [
    'a folder',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'mlx-listing-'));
      return {
        spec: dir,
        put: (key, body) => {
          mkdirSync(dirname(join(dir, key)), { recursive: true });
          writeFileSync(join(dir, key), body);
          return Promise.resolve();
        },
      };
    },
  ],
  [
    'S3',
    () => {
      const prefix = `t${++n}-${Math.random().toString(36).slice(2, 6)}`;
      return {
        spec: `s3://${BUCKET}/${prefix}`,
        put: (key, body) => s3.put(BUCKET, `${prefix}/${key}`, body),
      };
    },
  ],
];

/** One event line: the id, the subdomain, a time. */
function line(id: string, subdomain = 'acme', at = '2026-11-20T10:00:00Z'): string {
  return JSON.stringify({
    eventType: 'docs.content.view',
    payload: {
      event_id: id,
      subdomain,
      created_at: at,
      path: '/p',
      user_agent: 'Mozilla/5.0',
      anon_id: `a-${id}`,
    },
  });
}
const body = (...ids: string[]): string => ids.map((id) => line(id)).join('\n') + '\n';

const { logger } = warningsLogger();

interface Options {
  readonly projects?: readonly string[];
  readonly map?: ReadonlyMap<string, string>;
  readonly maxKeys?: number;
  readonly refresh?: boolean;
}

async function sync(place: Place, bucket: Bucket, o: Options = {}): Promise<EventsSummary> {
  const projects = o.projects ?? ['proj_a'];
  const checked = checkEventSettings(
    {
      source: bucket.spec,
      projectBySubdomain: o.map,
      now: () => NOW,
      openSource: (spec) => openEventSource(spec, o.maxKeys === undefined ? {} : { maxKeys: o.maxKeys }),
    },
    projects,
  );
  return syncEvents({ place, projects, runId: `run-${++n}`, refresh: o.refresh === true, logger }, checked);
}

async function migrated(target: () => Promise<{ place: Place }>): Promise<Place> {
  const { place } = await target();
  const dest = await place.open('write');
  await dest.close();
  return place;
}

const day = (d: number): string => `2026/11/${String(d).padStart(2, '0')}`;
const stamp = (d: number, h = 0): string =>
  `2026${11}${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}0000Z`;

describe.each(targets)('listing the event source into %s', (_db, target) => {
  describe.each(buckets)('from %s', (_kind, makeBucket) => {
    it('reads a new day of one deployment when another deployment of the bucket is newer (two prefixes)', async () => {
      const place = await migrated(target);
      const b = makeBucket();
      for (let d = 16; d <= 20; d++) await b.put(`docs/${day(d)}/${stamp(d)}-a.jsonl`, body(`docs-${d}`));
      for (let d = 16; d <= 21; d++) await b.put(`help/${day(d)}/${stamp(d)}-a.jsonl`, body(`help-${d}`));
      const first = await sync(place, b);
      expect(first).toMatchObject({ loaded: 11, failed: 0, newEvents: 11 });
      await b.put(`docs/${day(21)}/${stamp(21)}-a.jsonl`, body('docs-21'));
      const second = await sync(place, b);
      expect(second).toMatchObject({ loaded: 1, getRequests: 1, newEvents: 1 });
      const third = await sync(place, b);
      expect(third).toMatchObject({ loaded: 0, getRequests: 0 });
    });

    it('is not blinded by one key named far in the future: later and late objects named in time are read', async () => {
      const place = await migrated(target);
      const b = makeBucket();
      for (let d = 16; d <= 21; d++) await b.put(`${day(d)}/${stamp(d)}-a.jsonl`, body(`e-${d}`));
      await b.put(`${day(21)}/21991231T000000Z-clock.jsonl`, body('future'));
      expect(await sync(place, b)).toMatchObject({ loaded: 7, newEvents: 7 });
      await b.put(`${day(21)}/${stamp(21, 23)}-b.jsonl`, body('later'));
      await b.put(`${day(20)}/${stamp(20, 23)}-late.jsonl`, body('late'));
      expect(await sync(place, b)).toMatchObject({ loaded: 2, newEvents: 2 });
      expect(await sync(place, b)).toMatchObject({ loaded: 0, getRequests: 0 });
    });

    it('reads an object rewritten under its key again (a new ETag), and keeps each event once', async () => {
      const place = await migrated(target);
      const b = makeBucket();
      for (let d = 18; d <= 21; d++) await b.put(`${day(d)}/${stamp(d)}.jsonl`, body(`r-${d}`));
      expect(await sync(place, b)).toMatchObject({ loaded: 4, newEvents: 4 });
      // Same key, new bytes (a folder: a new size): the old event and two new ones.
      await b.put(`${day(21)}/${stamp(21)}.jsonl`, body('r-21', 'r-21-b', 'r-21-c'));
      expect(await sync(place, b)).toMatchObject({ loaded: 1, events: 3, newEvents: 2 });
      const rows = await reading(place, (s) =>
        s.rows(
          `SELECT event_id, count(*)::INTEGER AS n FROM analytics_events WHERE event_id LIKE 'r-21%' GROUP BY event_id ORDER BY event_id`,
        ),
      );
      expect(rows).toEqual([
        { event_id: 'r-21', n: 1 },
        { event_id: 'r-21-b', n: 1 },
        { event_id: 'r-21-c', n: 1 },
      ]);
      expect(await sync(place, b)).toMatchObject({ loaded: 0, getRequests: 0 });
    });
  });
});

describe('the listing requests of a two-prefix bucket (S3, DuckDB)', () => {
  it('are about new keys / page + one per prefix + the discovery, not the bucket history', async () => {
    const place = await migrated(targets[0]![1]);
    const b = buckets[1]![1]();
    for (const p of ['docs', 'help'])
      for (let d = 17; d <= 21; d++)
        for (const h of [0, 12]) await b.put(`${p}/${day(d)}/${stamp(d, h)}.jsonl`, body(`${p}-${d}-${h}`));
    const first = await sync(place, b, { maxKeys: 5 });
    expect(first.loaded).toBe(20);
    // The discovery (2 prefixes: one page), each prefix's 10 keys in pages of 5 (2, or 3 when the last is full).
    expect(first.listRequests).toBeLessThanOrEqual(1 + 2 * 3);
    for (const h of [1, 2, 3]) await b.put(`docs/${day(21)}/${stamp(21, h)}.jsonl`, body(`docs-new-${h}`));
    const second = await sync(place, b, { maxKeys: 5 });
    expect(second).toMatchObject({ loaded: 3, newEvents: 3 });
    // From two days back (19 to 21): docs 6 + 3 keys (2 pages), help 6 keys (2 pages), the discovery.
    expect(second.listRequests).toBeLessThanOrEqual(1 + 2 + 2);
  });
});
