import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, numericHolds } from '../../src/sources/events/exact-json.js';
import { MAX_EVENT_ID_CHARS, parseEventLine } from '../../src/sources/events/parse-line.js';
import { loadTrafficClasses } from '../../src/sources/events/traffic-class.js';

const key = Buffer.alloc(32, 7);
const lists = loadTrafficClasses();

function line(eventId: string, properties: string): string {
  return `{"eventType":"docs.x","payload":{"event_id":${JSON.stringify(eventId)},"created_at":"2026-11-20T10:00:00Z","properties":${properties}}}`;
}
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const reason = (text: string): string => {
  const r = parseEventLine(text, key, lists);
  return r.kind === 'rejected' ? r.reason : r.kind;
};

describe('a line no destination can store', () => {
  it('is rejected with its own reason: too deep, an event_id too long, a number numeric cannot hold', () => {
    expect(reason(line('e', nested(5_000)))).toBe('too-deep');
    expect(reason(line('e', JSON.stringify(nested(5_000))))).toBe('too-deep');
    // A payload sent as a JSON string, nested too deep inside.
    const payload = `{"event_id":"e","created_at":"2026-11-20T10:00:00Z","properties":${nested(5_000)}}`;
    expect(reason(`{"payload":${JSON.stringify(payload)}}`)).toBe('too-deep');
    expect(reason(line('x'.repeat(MAX_EVENT_ID_CHARS + 1), '{}'))).toBe('event-id-too-long');
    expect(reason(line('e', '{"n":1e131072}'))).toBe('number-out-of-range');
    expect(reason(line('e', '"{\\"n\\":[1,-1e131072]}"'))).toBe('number-out-of-range');
  });

  it('keeps what both destinations hold: depth up to the limit, ids up to the limit, numbers numeric holds', () => {
    // The envelope and the payload are two of the levels.
    expect(reason(line('e', nested(MAX_JSON_DEPTH - 2)))).toBe('event');
    expect(reason(line('e', nested(MAX_JSON_DEPTH - 1)))).toBe('too-deep');
    expect(reason(line('é'.repeat(MAX_EVENT_ID_CHARS), '{}'))).toBe('event');
    expect(reason(line('e', '{"n":1e131071,"m":1e400,"k":-0.5e131072}'))).toBe('event');
  });

  it("numericHolds follows PostgreSQL's numeric: 131,072 digits before the point, 16,383 after", () => {
    expect(numericHolds('1e131071')).toBe(true);
    expect(numericHolds('1e131072')).toBe(false);
    expect(numericHolds('0.5e131072')).toBe(true);
    expect(numericHolds('1e-16383')).toBe(true);
    expect(numericHolds('1e-16384')).toBe(false);
    expect(numericHolds('123456789e-16390')).toBe(false);
    expect(numericHolds('0e999999')).toBe(true);
    expect(numericHolds('1e2147483648')).toBe(false);
    expect(numericHolds('12345678901234567890123')).toBe(true);
  });
});
