import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { eventTargets, reading } from '../helpers/event-checks.js';

/*
 * Numbers a double cannot hold (an id of 20 digits in properties, an event_id sent as a number past
 * 2^53), written by hand so that the line holds exactly the stream's text, through the CLI into
 * both destinations: what is stored has every digit.
 */

const { targets, stop } = eventTargets();
afterAll(async () => {
  await stop();
});

const LINES = [
  '{"eventType":"docs.search.query","payload":{"event_id":12345678901234567891,"created_at":"2026-11-20T08:00:00Z","properties":{"doc_id":12345678901234567890,"q":"auth"}}}',
  '{"eventType":"docs.search.query","payload":{"event_id":12345678901234567892,"created_at":"2026-11-20T08:00:01Z","properties":{"doc_id":12345678901234567899,"q":"auth"}}}',
  `{"eventType":"docs.content.view","payload":${JSON.stringify('{"event_id":"e3","created_at":"2026-11-20T08:00:02Z","properties":"{\\"ts_ns\\":1763625602123456789}"}')}}`,
];

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'events-numbers-'));
  mkdirSync(join(dir, 'stream'));
  writeFileSync(join(dir, 'stream', '2026-11-20T08:05:00.000Z.jsonl'), `${LINES.join('\n')}\n`);
  return join(dir, 'stream');
}

describe.each(targets)('numbers past a double, synced into %s', (_name, target) => {
  it('are stored with every digit: ids in properties, and two numeric event_ids that differ past 2^53', async () => {
    const t = await target();
    const r = await runCli(['sync', '--streams', 'events', '--events', folder(), ...t.args, '--json'], {
      MINTLIFY_PROJECT_ID: 'p',
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = await reading(t.place, (s) =>
      s.rows(
        `SELECT event_id, properties->>'doc_id' AS doc_id, properties->>'ts_ns' AS ts_ns
FROM analytics_events ORDER BY created_at`,
      ),
    );
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { event_id: '12345678901234567891', doc_id: '12345678901234567890', ts_ns: null },
      { event_id: '12345678901234567892', doc_id: '12345678901234567899', ts_ns: null },
      { event_id: 'e3', doc_id: null, ts_ns: '1763625602123456789' },
    ]);
  });
});
