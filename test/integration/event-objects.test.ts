import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Destination, Place } from '../../src/load/destination.js';
import type { EventRow } from '../../src/load/event-rows.js';
import {
  eventHashKey,
  loadEventObject,
  loadedEventObjects,
  type EventObjectLoad,
} from '../../src/load/event-objects.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * One event object is loaded in one transaction with its ledger rows, each (project, event_id) once,
 * the same rows on both destinations.
 */

const row = (over: Partial<EventRow> & { event_id: string }): EventRow => ({
  project_id: 'p1',
  event_type: 'docs.content.view',
  subdomain: 'acme',
  created_at: '2026-11-20T23:30:00.123456Z',
  day: '2026-11-20',
  path: '/quickstart',
  referrer: null,
  referrer_host: null,
  traffic_class: 'human',
  visitor_key: 'ab'.repeat(32),
  anon_id: 'anon-1',
  session_id: 's1',
  user_id: null,
  user_agent: 'Mozilla/5.0',
  properties: '{"a":1,"text":"\u05e9\u05dc\u05d5\u05dd \ud83d\ude00"}',
  object_key: 'k1.jsonl',
  ...over,
});

async function* batches(...lists: EventRow[][]): AsyncGenerator<readonly EventRow[]> {
  for (const l of lists) yield await Promise.resolve(l);
}

const counts = { lines: 5, events: 4, rejected: 1, unmapped: 0 };
const load = (key: string, over: Partial<EventObjectLoad> = {}): EventObjectLoad => ({
  source: 'file:///mirror/',
  key,
  etag: 'e1',
  size: 100,
  projects: ['p1'],
  runId: 'run-1',
  ...over,
});

const runPg = hasPostgres();
const places: [string, () => Promise<Place>][] = [
  ['DuckDB', () => Promise.resolve(placeOf(parseDbTarget(tempDbPath())))],
];
let server: PostgresServer | undefined;
if (runPg)
  places.push([
    'PostgreSQL',
    async () => {
      server ??= await startPostgres();
      return placeOf(parseDbTarget(`${server.url}`, 'events_' + Math.random().toString(36).slice(2, 8)));
    },
  ]);
afterAll(async () => {
  await server?.stop();
});

describe.each(places)('an event object on %s', (_name, makePlace) => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await (await makePlace()).open('write');
  });
  afterAll(async () => {
    await dest.close();
  });

  it('stores each event once, the first line of a repeat winning, with its ledger row', async () => {
    const added = await loadEventObject(
      dest,
      load('k1.jsonl'),
      batches(
        [row({ event_id: 'e1' }), row({ event_id: 'e2', path: '/first' })],
        [row({ event_id: 'e2', path: '/second' }), row({ event_id: 'e3', properties: null })],
      ),
      () => counts,
    );
    expect(Object.fromEntries(added)).toEqual({ p1: 3 });
    const rows = await dest.session.rows(
      'SELECT event_id, path, created_at, day, properties FROM analytics_events ORDER BY event_id',
    );
    expect(rows.map((r) => [r['event_id'], r['path']])).toEqual([
      ['e1', '/quickstart'],
      ['e2', '/first'],
      ['e3', '/quickstart'],
    ]);
    expect(rows[0]?.['day']).toBe('2026-11-20');
    const ledger = await dest.session.rows(
      'SELECT object_key, new_events, rejected, lines FROM event_objects',
    );
    expect(ledger).toEqual([{ object_key: 'k1.jsonl', new_events: 3, rejected: 1, lines: 5 }]);
  });

  it('adds nothing for events stored already, and records the object', async () => {
    const added = await loadEventObject(
      dest,
      load('k2.jsonl'),
      batches([
        row({ event_id: 'e1', object_key: 'k2.jsonl' }),
        row({ event_id: 'e4', object_key: 'k2.jsonl' }),
      ]),
      () => counts,
    );
    expect(Object.fromEntries(added)).toEqual({ p1: 1 });
    const loaded = await loadedEventObjects(dest.session, 'file:///mirror/', ['p1']);
    expect([...loaded.keys()].sort()).toEqual(['k1.jsonl', 'k2.jsonl']);
  });

  it('leaves nothing of an object whose load fails halfway', async () => {
    async function* failing(): AsyncGenerator<readonly EventRow[]> {
      yield await Promise.resolve([row({ event_id: 'e9', object_key: 'k3.jsonl' })]);
      throw new Error('the connection broke');
    }
    await expect(loadEventObject(dest, load('k3.jsonl'), failing(), () => counts)).rejects.toThrow('broke');
    const n = await dest.session.rows("SELECT count(*) AS n FROM analytics_events WHERE event_id = 'e9'");
    expect(n[0]?.['n']).toBe(0);
    const l = await dest.session.rows(
      "SELECT count(*) AS n FROM event_objects WHERE object_key = 'k3.jsonl'",
    );
    expect(l[0]?.['n']).toBe(0);
  });

  it('counts each project its own new rows, a repeat within one batch and across batches kept once', async () => {
    const k = { object_key: 'k4.jsonl' };
    const added = await loadEventObject(
      dest,
      load('k4.jsonl', { projects: ['p1', 'p2'] }),
      batches(
        [
          row({ event_id: 'm1', project_id: 'p2', path: '/first', ...k }),
          row({ event_id: 'm1', project_id: 'p2', path: '/second', ...k }),
          // Stored for p1 already (k1.jsonl): new for p2 only.
          row({ event_id: 'e1', project_id: 'p2', ...k }),
          row({ event_id: 'e1', project_id: 'p1', ...k }),
          row({ event_id: 'm2', project_id: 'p1', ...k }),
        ],
        [
          row({ event_id: 'm2', project_id: 'p1', path: '/later', ...k }),
          row({ event_id: 'm3', project_id: 'p2', ...k }),
        ],
      ),
      () => counts,
    );
    expect(Object.fromEntries(added)).toEqual({ p1: 1, p2: 3 });
    const rows = await dest.session.rows(
      "SELECT project_id, event_id, path FROM analytics_events WHERE object_key = 'k4.jsonl' ORDER BY project_id, event_id",
    );
    expect(rows.map((r) => [r['project_id'], r['event_id'], r['path']])).toEqual([
      ['p1', 'm2', '/quickstart'],
      ['p2', 'e1', '/quickstart'],
      ['p2', 'm1', '/first'],
      ['p2', 'm3', '/quickstart'],
    ]);
    const ledger = await dest.session.rows(
      "SELECT project_id, new_events FROM event_objects WHERE object_key = 'k4.jsonl' ORDER BY project_id",
    );
    expect(ledger.map((r) => [r['project_id'], Number(r['new_events'])])).toEqual([
      ['p1', 1],
      ['p2', 3],
    ]);
  });

  it('leaves nothing of an object when the destination refuses a row while later batches come', async () => {
    const k = { object_key: 'k5.jsonl' };
    const refused = loadEventObject(
      dest,
      load('k5.jsonl'),
      batches(
        [row({ event_id: 'r1', ...k }), row({ event_id: 'r2', created_at: 'not a time', ...k })],
        [row({ event_id: 'r3', ...k })],
        [row({ event_id: 'r4', ...k })],
      ),
      () => counts,
    );
    await expect(refused).rejects.toThrow();
    const n = await dest.session.rows(
      "SELECT count(*) AS n FROM analytics_events WHERE object_key = 'k5.jsonl'",
    );
    expect(Number(n[0]?.['n'])).toBe(0);
    // The connection is whole again: the next object loads.
    const added = await loadEventObject(
      dest,
      load('k6.jsonl'),
      batches([row({ event_id: 'r1', object_key: 'k6.jsonl' })]),
      () => counts,
    );
    expect(Object.fromEntries(added)).toEqual({ p1: 1 });
  });

  it('leaves nothing of an object whose reading fails while its earlier batches are still being stored', async () => {
    async function* failing(): AsyncGenerator<readonly EventRow[]> {
      yield await Promise.resolve([row({ event_id: 'f1', object_key: 'k7.jsonl' })]);
      yield await Promise.resolve([row({ event_id: 'f2', object_key: 'k7.jsonl' })]);
      throw new Error('the object was cut short');
    }
    await expect(loadEventObject(dest, load('k7.jsonl'), failing(), () => counts)).rejects.toThrow(
      'cut short',
    );
    const n = await dest.session.rows(
      "SELECT count(*) AS n FROM analytics_events WHERE object_key = 'k7.jsonl'",
    );
    expect(Number(n[0]?.['n'])).toBe(0);
  });

  it('makes the visitor hash key once and keeps it', async () => {
    const a = await eventHashKey(dest.session);
    const b = await eventHashKey(dest.session);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
  });
});
