import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEventLine } from '../../src/sources/events/parse-line.js';
import { loadTrafficClasses } from '../../src/sources/events/traffic-class.js';
import type { ParsedEvent } from '../../src/load/event-rows.js';

const key = Buffer.from('0123456789abcdef0123456789abcdef');
const lists = loadTrafficClasses();
const hmac = (input: string): string => createHmac('sha256', key).update(input).digest('hex');

const base = {
  event_id: '0b7f3c2e-1111-4222-8333-444455556666',
  subdomain: 'acme',
  user_id: 'u1',
  anon_id: 'anon-1',
  session_id: 's1',
  created_at: '2026-11-27T08:15:00.123Z',
  event: 'docs.content.view',
  path: '/quickstart',
  referrer: 'https://WWW.Google.com/search?q=x',
  user_agent: 'Mozilla/5.0 Firefox/140',
  ip: '203.0.113.7',
  properties: { title: 'Quickstart' },
};

const NONE = Symbol('no eventType');

function line(payload: unknown, eventType: unknown = 'docs.content.view'): string {
  return JSON.stringify(eventType === NONE ? { payload } : { eventType, payload });
}

function parsed(text: string): ParsedEvent {
  const r = parseEventLine(text, key, lists);
  if (r.kind !== 'event') throw new Error(`not an event: ${JSON.stringify(r)}`);
  return r.event;
}

describe('parseEventLine', () => {
  it('reads an envelope with a payload object into the stored row', () => {
    expect(parsed(line(base))).toEqual({
      event_id: base.event_id,
      event_type: 'docs.content.view',
      subdomain: 'acme',
      created_at: '2026-11-27T08:15:00.123000Z',
      day: '2026-11-27',
      path: '/quickstart',
      referrer: 'https://WWW.Google.com/search?q=x',
      referrer_host: 'google.com',
      traffic_class: 'human',
      visitor_key: hmac('a\0anon-1'),
      anon_id: 'anon-1',
      session_id: 's1',
      user_id: 'u1',
      user_agent: 'Mozilla/5.0 Firefox/140',
      properties: '{"title":"Quickstart"}',
    });
  });

  it('reads a payload sent as a JSON-encoded string, and properties sent as one', () => {
    const payload = JSON.stringify({ ...base, properties: JSON.stringify({ q: 'auth', n: 3 }) });
    const e = parsed(line(payload));
    expect(e.event_id).toBe(base.event_id);
    expect(e.properties).toBe('{"q":"auth","n":3}');
  });

  it('keeps properties that are a string but not JSON as that JSON string, and absent ones as null', () => {
    expect(parsed(line({ ...base, properties: 'plain words' })).properties).toBe('"plain words"');
    const { properties: _, ...without } = base;
    expect(parsed(line(without)).properties).toBeNull();
  });

  it('takes event_type from the envelope, else from the payload, else null', () => {
    expect(parsed(line({ ...base, event: 'docs.search.query' }, 'docs.search.close')).event_type).toBe(
      'docs.search.close',
    );
    expect(parsed(line({ ...base, event: 'docs.search.query' }, NONE)).event_type).toBe('docs.search.query');
    const { event: _, ...noEvent } = base;
    expect(parsed(line(noEvent, NONE)).event_type).toBeNull();
  });

  it('honours the offset of created_at, keeps microseconds and gives the UTC day of the instant', () => {
    const at = (t: string): ParsedEvent => parsed(line({ ...base, created_at: t }));
    expect(at('2026-11-27T01:30:00+02:00')).toMatchObject({
      created_at: '2026-11-26T23:30:00.000000Z',
      day: '2026-11-26',
    });
    expect(at('2026-11-27T23:30:00.1234567-05:30')).toMatchObject({
      created_at: '2026-11-28T05:00:00.123456Z',
      day: '2026-11-28',
    });
    expect(at('2026-11-27T08:15:00Z').created_at).toBe('2026-11-27T08:15:00.000000Z');
    expect(at('2026-11-27 08:15:00.5').created_at).toBe('2026-11-27T08:15:00.500000Z');
    expect(at('2026-11-27T08:15:00.000001+0100').created_at).toBe('2026-11-27T07:15:00.000001Z');
  });

  it('rejects a created_at that is not an ISO 8601 time', () => {
    for (const t of [
      'yesterday',
      '2026-02-30T00:00:00Z',
      '2026-11-27',
      1764230400000,
      null,
      '2026-11-27T25:00:00Z',
      '',
    ]) {
      expect(parseEventLine(line({ ...base, created_at: t }), key, lists), String(t)).toEqual({
        kind: 'rejected',
        reason: 'bad-created-at',
      });
    }
  });

  it('rejects a line that is not a JSON object, a payload that is not JSON, and no event_id', () => {
    const reject = (text: string) => parseEventLine(text, key, lists);
    expect(reject('{"eventType":"x","payload":')).toEqual({ kind: 'rejected', reason: 'not-json' });
    expect(reject('[1,2]')).toEqual({ kind: 'rejected', reason: 'not-json' });
    expect(reject('"just a string"')).toEqual({ kind: 'rejected', reason: 'not-json' });
    expect(reject(line('{not json'))).toEqual({ kind: 'rejected', reason: 'payload-not-json' });
    expect(reject(line('[1]'))).toEqual({ kind: 'rejected', reason: 'payload-not-json' });
    for (const id of [undefined, '', '   ', { a: 1 }, null]) {
      expect(reject(line({ ...base, event_id: id })), JSON.stringify(id) ?? 'undefined').toEqual({
        kind: 'rejected',
        reason: 'no-event-id',
      });
    }
  });

  it('calls a blank line blank, CR and whitespace included', () => {
    for (const b of ['', '   ', '\r', '\t \r'])
      expect(parseEventLine(b, key, lists)).toEqual({ kind: 'blank' });
  });

  it('stringifies numeric ids and drops object ones', () => {
    const e = parsed(line({ ...base, event_id: 12345, user_id: 7, session_id: { x: 1 } }));
    expect(e).toMatchObject({ event_id: '12345', user_id: '7', session_id: null });
  });

  it('keys a visitor without anon_id by ip and user agent, and no visitor without either', () => {
    expect(parsed(line({ ...base, anon_id: '' })).visitor_key).toBe(
      hmac('i\x00203.0.113.7\x00Mozilla/5.0 Firefox/140'),
    );
    expect(parsed(line({ ...base, anon_id: null, user_agent: null })).visitor_key).toBe(
      hmac('i\x00203.0.113.7\x00'),
    );
    expect(parsed(line({ ...base, anon_id: null, ip: '' })).visitor_key).toBeNull();
  });

  it('never lets the ip out: not in the row, not in a rejection', () => {
    const ip = '198.51.100.23';
    const e = parsed(line({ ...base, ip, anon_id: null }));
    expect(JSON.stringify(e)).not.toContain(ip);
    expect(JSON.stringify(parseEventLine(line({ ...base, ip, created_at: 'x' }), key, lists))).not.toContain(
      ip,
    );
  });

  it('gives the referrer host in lower case without www., and null for no URL', () => {
    const host = (r: unknown) => parsed(line({ ...base, referrer: r })).referrer_host;
    expect(host('https://www.Example.COM:8443/a?b#c')).toBe('example.com');
    expect(host('http://docs.www.example.com/')).toBe('docs.www.example.com');
    expect(host('')).toBeNull();
    expect(host('not a url')).toBeNull();
    expect(host(null)).toBeNull();
  });

  it('classifies the user agent', () => {
    expect(
      parsed(line({ ...base, user_agent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0)' })).traffic_class,
    ).toBe('training');
  });
});

describe('parseEventLine on wild data', () => {
  it('makes NUL and lone surrogates storable in every text, properties keys and values included', () => {
    const text =
      '{"eventType":"docs.x\\u0000","payload":{"event_id":"id\\ud800","created_at":"2026-11-27T08:15:00Z",' +
      '"path":"/a\\u0000b","user_agent":"UA\\udc00","properties":{"k\\u0000":"v\\udbff","n":[1,"\\ud83d\\ude00"]}}}';
    const e = parsed(text);
    expect(e.event_id).toBe('id\ufffd');
    expect(e.event_type).toBe('docs.x\ufffd');
    expect(e.path).toBe('/a\ufffdb');
    expect(e.user_agent).toBe('UA\ufffd');
    expect(JSON.parse(e.properties!)).toEqual({ 'k\ufffd': 'v\ufffd', n: [1, '\u{1F600}'] });
  });

  it('keeps a 30,000-character value whole', () => {
    const long = 'é'.repeat(30_000);
    const e = parsed(line({ ...base, path: long, properties: { answer: long } }));
    expect(e.path).toBe(long);
    expect(JSON.parse(e.properties!)).toEqual({ answer: long });
  });

  it('reads a line with a CR at its end and a byte order mark at its start', () => {
    expect(parsed(`\ufeff${line(base)}\r`).event_id).toBe(base.event_id);
  });
});
