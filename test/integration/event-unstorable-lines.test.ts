import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasPostgres } from '../helpers/postgres.js';
import { eventLine, syncFolder, wildPlaces, writeObjects } from '../helpers/wild-event-lines.js';

/*
 * Issue 35, item 2: a line that cannot be stored (properties nested 5,000 deep, an event_id of
 * 3,000 characters, a number no numeric holds) is a rejected line, counted in the ledger and the
 * summary, never fatal: the lines around it and the objects after it load, and both destinations
 * hold the same rows.
 */

const { places, stop } = wildPlaces(hasPostgres());
afterAll(stop);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `{"a":{"a":...{"a":1}...}}`, `depth` objects deep, as JSON text. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** `n` hex digits no compression shortens (PostgreSQL's index compresses a repeated text below its limit). */
function randomHex(n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += createHash('sha256').update(String(i)).digest('hex');
  return out.slice(0, n);
}

/** A line whose payload's properties are this raw JSON text (not a JS value: deep or huge numbers). */
function rawPropertiesLine(id: string, raw: string): string {
  return eventLine(id, { properties: '@@RAW@@' }).replace('"@@RAW@@"', raw);
}

describe.each(places)('a line that cannot be stored, on %s', (_name, makePlace) => {
  it('is rejected and counted; the lines around it and the objects after it load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-unstorable-'));
    dirs.push(dir);
    writeObjects(dir, {
      '2026/11/20/20261120T100000Z-a.jsonl': [
        eventLine('ok-1', { properties: { n: 1 } }),
        rawPropertiesLine('deep', nested(5_000)),
        eventLine(randomHex(3_000)),
        eventLine('é'.repeat(700)),
        rawPropertiesLine('huge-number', '{"n":1e131072}'),
        // Below a double's range: read as 0, as exact-json.ts says, and stored so on both.
        rawPropertiesLine('tiny-number', '{"n":1e-20000}'),
        eventLine('ok-2', { properties: { n: 2 } }),
      ],
      '2026/11/20/20261120T110000Z-b.jsonl': [eventLine('ok-3')],
    });
    const place = await makePlace();
    const s = await syncFolder(place, dir);
    expect(s.error).toBeNull();
    expect(s).toMatchObject({ loaded: 2, failed: 0, lines: 8, rejected: 4, newEvents: 4 });
    const dest = await place.open('read');
    try {
      const ids = await dest.session.rows('SELECT event_id FROM analytics_events ORDER BY event_id');
      expect(ids.map((r) => r['event_id'])).toEqual(['ok-1', 'ok-2', 'ok-3', 'tiny-number']);
      const ledger = await dest.session.rows(
        'SELECT object_key, lines, events, rejected, new_events FROM event_objects ORDER BY object_key',
      );
      expect(
        ledger.map((r) => [
          r['object_key'],
          Number(r['lines']),
          Number(r['rejected']),
          Number(r['new_events']),
        ]),
      ).toEqual([
        ['2026/11/20/20261120T100000Z-a.jsonl', 7, 4, 3],
        ['2026/11/20/20261120T110000Z-b.jsonl', 1, 0, 1],
      ]);
    } finally {
      await dest.close();
    }
  }, 60_000);
});
