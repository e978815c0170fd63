import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storableText } from '../../src/load/storable-text.js';
import { hasPostgres } from '../helpers/postgres.js';
import { eventLine, syncFolder, wildPlaces, wildText, writeObjects } from '../helpers/wild-event-lines.js';

/*
 * Issue 35, item 1: real assistant events (400 properties of ~64 KiB: questions of 30,000
 * characters and longer answers, odd unicode; a property of 4 MiB, a line of 16 MiB) load on both destinations; DuckDB's writer memory follows
 * the work instead of failing every run at its fixed 32 MB ("Out of Memory Error"), and the
 * objects loaded after a huge line, in the same run and the next, still load.
 */

const { places, stop } = wildPlaces(hasPostgres());
afterAll(stop);

const MIB = 2 ** 20;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'event-memory-'));
  dirs.push(d);
  return d;
}

// Properties of ~64 KiB each: a 30,000-character question (a pasted log) and a longer answer.
const ANSWERS = 400;
const answers = Array.from({ length: ANSWERS }, (_, i) =>
  eventLine(`ans-${i}`, {
    properties: { query: wildText(30_000, i), response: wildText(35_000, i + 1), sources: ['/a', '/b'] },
  }),
);

function parsed(v: unknown): Record<string, unknown> {
  return (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
}

describe.each(places)('wild assistant events on %s', (_name, makePlace) => {
  it('load 400 properties of 64 KiB, a 4 MiB and a 16 MiB property, and the objects after them, run after run', async () => {
    const dir = folder();
    writeObjects(dir, {
      '2026/11/20/20261120T100000Z-a.jsonl': answers,
      '2026/11/20/20261120T110000Z-b.jsonl': [
        eventLine('big-4', { properties: { blob: wildText(4 * MIB, 7) } }),
        eventLine('big-16', { properties: { blob: 'x'.repeat(16 * MIB) } }),
        eventLine('small-b', { properties: { n: 1 } }),
      ],
      '2026/11/20/20261120T120000Z-c.jsonl': [eventLine('small-c', { properties: { n: 2 } })],
    });
    const place = await makePlace();
    const first = await syncFolder(place, dir);
    expect(first.error).toBeNull();
    expect(first).toMatchObject({ loaded: 3, failed: 0, newEvents: ANSWERS + 4, rejected: 0 });
    // The next run opens the writer afresh, its memory as small as ever, over the table holding the
    // 16 MiB value: its object loads too.
    writeObjects(dir, {
      '2026/11/20/20261120T130000Z-d.jsonl': [eventLine('small-d', { properties: { n: 3 } })],
    });
    const next = await syncFolder(place, dir, 'run-2');
    expect(next.error).toBeNull();
    expect(next).toMatchObject({ loaded: 1, failed: 0, newEvents: 1 });
    const dest = await place.open('read');
    try {
      const n = await dest.session.rows('SELECT count(*) AS n FROM analytics_events');
      expect(Number(n[0]?.['n'])).toBe(ANSWERS + 5);
      const rows = await dest.session.rows(
        "SELECT event_id, properties FROM analytics_events WHERE event_id IN ('ans-17', 'big-16') ORDER BY event_id",
      );
      expect(parsed(rows[0]?.['properties'])['response']).toBe(storableText(wildText(35_000, 18)));
      expect((parsed(rows[1]?.['properties'])['blob'] as string).length).toBe(16 * MIB);
    } finally {
      await dest.close();
    }
  }, 120_000);
});
