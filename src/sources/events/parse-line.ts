import { createHmac } from 'node:crypto';
import type { ParsedEvent } from '../../load/event-rows.js';
import { storableText } from '../../load/storable-text.js';
import { utcMicros } from './created-at.js';
import { JsonReading, WrittenNumber } from './exact-json.js';
import { classify, type TrafficLists } from './traffic-class.js';
import type { RejectReason } from './types.js';

/**
 * One line of Mintlify's event stream: an envelope `{"eventType", "payload"}` whose payload is
 * an object or a JSON-encoded string. The line's `ip` only ever feeds `visitor_key`: it is in no
 * returned value and no error (a rejection carries its reason alone).
 */
export type LineResult =
  | { readonly kind: 'event'; readonly event: ParsedEvent }
  | { readonly kind: 'rejected'; readonly reason: RejectReason }
  | { readonly kind: 'blank' };

type Json = Record<string, unknown>;

const BLANK = /^\s*$/;
const BLANK_RESULT: LineResult = { kind: 'blank' };
const rejected = (reason: RejectReason): LineResult => ({ kind: 'rejected', reason });

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof WrittenNumber);
}

/** A text field as stored: strings storable, numbers and booleans as text, '' and anything else null. */
function text(v: unknown): string | null {
  // '' is stored as sent: the destination holds what the stream says (an empty anon_id is no visitor).
  if (typeof v === 'string') return storableText(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof WrittenNumber) return v.text;
  return null;
}

/** The payload of an envelope; a line without `payload` is taken as a bare payload. */
function payloadOf(envelope: Json, reading: JsonReading): Json | undefined {
  const p = 'payload' in envelope ? envelope['payload'] : envelope;
  if (typeof p === 'string') {
    const inner = reading.parse(p);
    return isObject(inner) ? inner : undefined;
  }
  return isObject(p) ? p : undefined;
}

/** propertiesText's answers for properties no destination can store. */
const TOO_DEEP_TEXT = Symbol('too deep');
const OUT_OF_RANGE_TEXT = Symbol('number out of range');

/**
 * properties as JSON text: an object as it is, a JSON string decoded, any other string as a JSON
 * string; or why it cannot be stored.
 */
function propertiesText(
  v: unknown,
  reading: JsonReading,
): string | null | typeof TOO_DEEP_TEXT | typeof OUT_OF_RANGE_TEXT {
  if (v === undefined || v === null) return null;
  let value: unknown = v;
  if (typeof v === 'string') {
    const inner = reading.parse(v);
    if (reading.tooDeep) return TOO_DEEP_TEXT;
    if (inner !== undefined) value = inner;
  }
  if (reading.holdsNumberOutOfRange(value)) return OUT_OF_RANGE_TEXT;
  return reading.json(value);
}

const WWW = /^www\./;

/** The referrer URL's host, lower case, without `www.`; null when empty or not a URL. */
export function referrerHost(referrer: string | null): string | null {
  if (referrer === null) return null;
  if (!URL.canParse(referrer)) return null;
  const host = new URL(referrer).hostname.toLowerCase().replace(WWW, '');
  return host === '' ? null : host;
}

/**
 * Visitor keys already computed, per hash key: one HMAC costs about as much as parsing the line,
 * and a visitor sends many events. Bounded: cleared when full.
 */
const VISITOR_CACHE_SIZE = 50_000;
const visitorCache = new WeakMap<Buffer, Map<string, string>>();

/** HMAC-SHA-256 of the visitor: `a\0anon_id`, else `i\0ip\0user_agent`; null when neither is known. */
function visitorKey(hashKey: Buffer, anon: string | null, ip: unknown, ua: string | null): string | null {
  let input: string;
  if (anon !== null && anon !== '') input = `a\0${anon}`;
  else if (typeof ip === 'string' && ip !== '') input = `i\0${ip}\0${ua ?? ''}`;
  else return null;
  let cache = visitorCache.get(hashKey);
  if (cache === undefined) visitorCache.set(hashKey, (cache = new Map<string, string>()));
  let hex = cache.get(input);
  if (hex === undefined) {
    hex = createHmac('sha256', hashKey).update(input).digest('hex');
    if (cache.size >= VISITOR_CACHE_SIZE) cache.clear();
    cache.set(input, hex);
  }
  return hex;
}

function eventId(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (v instanceof WrittenNumber) return v.text;
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  return storableText(v);
}

/**
 * The longest event_id stored: PostgreSQL's unique index on (project_id, event_id) refuses a row
 * over 2,704 bytes ("index row size exceeds btree maximum"; a random id of ~2,900 characters did);
 * 512 UTF-16 units are at most 1,536 bytes of UTF-8. Real ids are UUIDs (36). Longer is refused on
 * both destinations.
 */
export const MAX_EVENT_ID_CHARS = 512;

/** Reads one line (a CR at its end and a byte order mark at its start are dropped). */
export function parseEventLine(line: string, hashKey: Buffer, lists: TrafficLists): LineResult {
  if (BLANK.test(line)) return BLANK_RESULT;
  const reading = new JsonReading();
  const envelope = reading.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
  if (reading.tooDeep) return rejected('too-deep');
  if (!isObject(envelope)) return rejected('not-json');
  const p = payloadOf(envelope, reading);
  if (reading.tooDeep) return rejected('too-deep');
  if (p === undefined) return rejected('payload-not-json');
  const id = eventId(p['event_id']);
  if (id === undefined) return rejected('no-event-id');
  if (id.length > MAX_EVENT_ID_CHARS) return rejected('event-id-too-long');
  const at = typeof p['created_at'] === 'string' ? utcMicros(p['created_at']) : undefined;
  if (at === undefined) return rejected('bad-created-at');
  const properties = propertiesText(p['properties'], reading);
  if (properties === TOO_DEEP_TEXT || reading.tooDeep) return rejected('too-deep');
  if (properties === OUT_OF_RANGE_TEXT) return rejected('number-out-of-range');
  const anon = text(p['anon_id']);
  const ua = text(p['user_agent']);
  const referrer = text(p['referrer']);
  const event: ParsedEvent = {
    event_id: id,
    event_type: text(envelope['eventType']) ?? text(p['event']),
    subdomain: text(p['subdomain']),
    created_at: at,
    day: at.slice(0, 10),
    path: text(p['path']),
    referrer,
    referrer_host: referrerHost(referrer),
    traffic_class: classify(ua, lists),
    visitor_key: visitorKey(hashKey, anon, p['ip'], ua),
    anon_id: anon,
    session_id: text(p['session_id']),
    user_id: text(p['user_id']),
    user_agent: ua,
    properties,
  };
  return { kind: 'event', event };
}
