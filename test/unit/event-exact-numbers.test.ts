import { describe, expect, it } from 'vitest';
import { storableJson } from '../../src/load/storable-text.js';
import { parseEventLine } from '../../src/sources/events/parse-line.js';
import { JsonReading } from '../../src/sources/events/exact-json.js';
import { loadTrafficClasses } from '../../src/sources/events/traffic-class.js';

const key = Buffer.from('0123456789abcdef0123456789abcdef');
const lists = loadTrafficClasses();

/** A line written by hand, so that its numbers are exactly the text a stream would send. */
const lineWith = (payload: string, envelopeExtra = ''): string =>
  `{"eventType":"docs.search.query"${envelopeExtra},"payload":${payload}}`;

function event(text: string) {
  const r = parseEventLine(text, key, lists);
  if (r.kind !== 'event') throw new Error(`not an event: ${JSON.stringify(r)}`);
  return r.event;
}

describe('numbers a double cannot hold, as the stream wrote them', () => {
  it('keeps a 20-digit id in properties, not the double JSON.parse would make of it', () => {
    const e = event(
      lineWith(
        '{"event_id":"e1","created_at":"2026-11-27T08:00:00Z","properties":{"doc_id":12345678901234567890,"n":3,"score":0.5}}',
      ),
    );
    expect(e.properties).toBe('{"doc_id":12345678901234567890,"n":3,"score":0.5}');
  });

  it('keeps them in a payload sent as a JSON-encoded string, and in properties sent as one', () => {
    const inner =
      '{"event_id":"e2","created_at":"2026-11-27T08:00:00Z","properties":"{\\"id\\":9007199254740993}"}';
    expect(event(lineWith(JSON.stringify(inner))).properties).toBe('{"id":9007199254740993}');
  });

  it('keeps digits past 2^53, 17-digit fractions and exponents past a double as written', () => {
    const e = event(
      lineWith(
        '{"event_id":"e3","created_at":"2026-11-27T08:00:00Z","properties":{"a":-98765432109876543210,"b":0.30000000000000001,"c":1e400,"d":2.5e-400,"e":1234567.1234567891}}',
      ),
    );
    expect(e.properties).toBe(
      '{"a":-98765432109876543210,"b":0.30000000000000001,"c":1e400,"d":2.5e-400,"e":1234567.1234567891}',
    );
  });

  it('stores an event_id sent as a number past 2^53 with its digits: two such ids stay two events', () => {
    const a = event(lineWith('{"event_id":12345678901234567891,"created_at":"2026-11-27T08:00:00Z"}'));
    const b = event(lineWith('{"event_id":12345678901234567892,"created_at":"2026-11-27T08:00:00Z"}'));
    expect(a.event_id).toBe('12345678901234567891');
    expect(b.event_id).toBe('12345678901234567892');
    expect(
      event(lineWith('{"event_id":"x","user_id":98765432109876543210,"created_at":"2026-11-27T08:00:00Z"}'))
        .user_id,
    ).toBe('98765432109876543210');
  });

  it('reads every other value as JSON.parse does: the last of a repeated key in its first place, __proto__ a key, strings storable', () => {
    const texts = [
      '{"b":1,"a":2,"b":3}',
      '{"__proto__":{"x":1},"2":"two","1":"one","k":[1,2.5,-0,true,false,null,"\\u0000","\\ud800x"]}',
      ' { "s" : "tab\\t quote\\" slash\\/ é 😀" , "e" : {} , "l" : [ ] } ',
      '[{"deep":[[[{"n":1.5e10}]]]}]',
      '"just a string"',
      '-0.0',
      '1.10',
    ];
    for (const t of texts) {
      // A number past 2^53 beside it makes the reading exact: the value is read by exact-json.
      const exact = new JsonReading();
      const read = exact.parse(`{"id":12345678901234567890,"v":${t}}`) as { v: unknown };
      expect(read.v, t).toEqual(JSON.parse(t));
      expect(exact.json(read.v), t).toBe(storableJson(JSON.parse(t)));
    }
    expect(new JsonReading().parse('{"a":1,}')).toBeUndefined();
    expect(new JsonReading().parse('NaN')).toBeUndefined();
  });

  it('gives the same row whichever reading a line takes: a 16-digit string alone changes nothing', () => {
    const plain = event(
      lineWith(
        '{"event_id":"e4","created_at":"2026-11-27T08:00:00Z","path":"/a","properties":{"q":"x","n":7}}',
      ),
    );
    const lookalike = event(
      lineWith(
        '{"event_id":"e4","created_at":"2026-11-27T08:00:00Z","path":"/a","properties":{"q":"x","n":7}}',
        ',"note":"1234567890123456"',
      ),
    );
    expect(lookalike).toEqual(plain);
  });
});
