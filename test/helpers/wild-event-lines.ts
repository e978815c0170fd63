import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ODD_TEXTS } from '../../src/emulator/events/wild.js';
import type { Place } from '../../src/load/destination.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { checkEventSettings, syncEvents, type EventsSummary } from '../../src/pipeline/event-sync.js';
import { silentLogger } from '../../src/util/log.js';
import { tempDbPath } from './db.js';
import { startPostgres, type PostgresServer } from './postgres.js';

/*
 * Lines of the event stream as wild as real ones (assistant answers of many KB with odd unicode,
 * huge properties, deep or odd JSON), written as objects of a local folder and loaded in process
 * by syncEvents, on DuckDB or PostgreSQL.
 */

/** About `n` characters of answer-like text with every odd text of the emulator in it. */
export function wildText(n: number, salt = 0): string {
  let s = '';
  for (let i = 0; s.length < n; i++)
    s += i % 4 === 1 ? `${ODD_TEXTS[(salt + i) % ODD_TEXTS.length]} ` : `Step ${i}: set \`navigation\`.\n`;
  return s.slice(0, n);
}

/** One line of the stream: an envelope around a payload with these properties (or payload fields). */
export function eventLine(
  id: string | number,
  over: Record<string, unknown> = {},
  type = 'docs.assistant.completed',
): string {
  return JSON.stringify({
    eventType: type,
    payload: {
      event_id: id,
      subdomain: 'acme',
      anon_id: `anon-${String(id).slice(0, 20)}`,
      session_id: 's-1',
      created_at: '2026-11-20T10:00:00.123Z',
      path: '/quickstart',
      user_agent: 'Mozilla/5.0',
      ip: '10.0.0.1',
      ...over,
    },
  });
}

/** Writes objects (key -> lines) under a fresh folder laid out like the bucket. */
export function writeObjects(dir: string, objects: Record<string, readonly string[]>): void {
  for (const [key, lines] of Object.entries(objects)) {
    const path = join(dir, ...key.split('/'));
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${lines.join('\n')}\n`);
  }
}

/** Loads the folder into the place as project p1 (subdomain acme), as `sync --streams events` does. */
export function syncFolder(place: Place, dir: string, runId = 'run-1'): Promise<EventsSummary> {
  const checked = checkEventSettings({ source: dir }, ['p1']);
  return syncEvents({ place, projects: ['p1'], runId, refresh: false, logger: silentLogger }, checked);
}

/** A fresh DuckDB file, or a fresh schema of one PostgreSQL server shared by the file's tests. */
export function wildPlaces(withPg: boolean): {
  places: [string, () => Promise<Place>][];
  stop: () => Promise<void>;
} {
  const places: [string, () => Promise<Place>][] = [
    ['DuckDB', () => Promise.resolve(placeOf(parseDbTarget(tempDbPath())))],
  ];
  let server: PostgresServer | undefined;
  if (withPg)
    places.push([
      'PostgreSQL',
      async () => {
        server ??= await startPostgres();
        return placeOf(parseDbTarget(server.url, `wild_${Math.random().toString(36).slice(2, 8)}`));
      },
    ]);
  return { places, stop: async () => server?.stop() };
}
