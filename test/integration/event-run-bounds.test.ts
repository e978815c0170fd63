import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEvents } from '../../src/cli/event-summary.js';
import { generateEventStream, writeEventStream } from '../../src/emulator/events/index.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { openEventSource, type EventSource } from '../../src/sources/events/index.js';
import { tempDbPath } from '../helpers/db.js';
import { eventOnlySyncOptions } from '../helpers/event-sync-options.js';
import { expectEventsExact, reading } from '../helpers/event-checks.js';

/*
 * --max-duration bounds the event phase too: it stops between objects once the run's time is up,
 * leaves the rest for the next run and says so (summary line and --json). The run's clock is
 * injected: each object read moves it on by a second, so the test never waits.
 */

const PROJECT = 'proj_bounds';
const stream = generateEventStream({ seed: 43, days: 3, endDay: '2026-11-20', objectsPerDay: 3 });
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mlx-events-bounds-'));
  await writeEventStream(folder, stream);
});

/** A clock that moves on by `stepMs` each time the source opens an object. */
function steppingClock(stepMs: number): { now: () => number; open: (spec: string) => Promise<EventSource> } {
  let t = Date.parse('2026-11-21T06:00:00Z');
  return {
    now: () => t,
    open: async (spec) => {
      const s = await openEventSource(spec);
      const open = s.open.bind(s);
      return Object.assign(s, {
        open: (...args: Parameters<EventSource['open']>) => {
          t += stepMs;
          return open(...args);
        },
      });
    },
  };
}

function options(db: string, over: Partial<SyncOptions> = {}, clock = steppingClock(1_000)): SyncOptions {
  return eventOnlySyncOptions(PROJECT, {
    dbPath: db,
    now: clock.now,
    events: { source: folder, openSource: clock.open },
    ...over,
  });
}

describe('--max-duration and the event phase', () => {
  it('stops between objects when the time is up, says so, and the next run loads the rest exactly', async () => {
    const db = tempDbPath();
    expect(stream.objects.length).toBeGreaterThan(4);
    const s = await runSync(options(db, { maxDurationMs: 2_500 }));
    // Objects start at 0 s, 1 s and 2 s of the run's clock; the fourth would start at 3 s.
    expect(s).toMatchObject({ status: 'incomplete', exitCode: 0, stopReason: 'max-duration' });
    expect(s.events).toMatchObject({ loaded: 3, failed: 0, stopReason: 'max-duration' });
    expect(describeEvents(s.events!)).toContain('stopped by --max-duration between objects');
    const place = placeOf(parseDbTarget(db));
    const [run] = await reading(place, (d) => d.rows('SELECT status, error FROM sync_runs'));
    expect(run).toMatchObject({ status: 'incomplete' });
    expect(String(run?.['error'])).toMatch(/--max-duration reached after 3 object\(s\)/);
    const next = await runSync(options(db));
    expect(next).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(next.events?.loaded).toBe(stream.objects.length - 3);
    await reading(place, (d) => expectEventsExact(d, stream, PROJECT));
  });
});
