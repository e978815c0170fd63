import { gzipSync } from 'node:zlib';
import type { EventModel, LineModel, ObjectModel } from './model.js';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * created_at as the stream writes it: the local time at the event's offset, its fraction digits
 * and the offset (`Z` for 0). `2026-11-27T01:30:00.123456+02:00` is 2026-11-26 in UTC.
 */
export function writtenCreatedAt(e: EventModel): string {
  const micros = e.micros + e.offsetMinutes * 60_000_000;
  const secs = Math.floor(micros / 1_000_000);
  const frac = micros - secs * 1_000_000;
  const d = new Date(secs * 1000);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const fraction = e.fractionDigits === 0 ? '' : `.${pad(frac, 6).slice(0, e.fractionDigits)}`;
  return `${date}T${time}${fraction}${offsetText(e.offsetMinutes)}`;
}

function offsetText(minutes: number): string {
  if (minutes === 0) return 'Z';
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The payload object in the field order Mintlify's docs list; absent keys stay absent. */
export function payloadOf(e: EventModel, createdAt: string = writtenCreatedAt(e)): Record<string, unknown> {
  const p: Record<string, unknown> = {
    event_id: e.eventId,
    subdomain: e.subdomain,
    user_id: e.userId,
  };
  if (e.anonId !== undefined) p['anon_id'] = e.anonId;
  p['session_id'] = e.sessionId;
  p['created_at'] = createdAt;
  if (e.payloadEvent !== null) p['event'] = e.payloadEvent;
  p['path'] = e.path;
  p['referrer'] = e.referrer;
  p['user_agent'] = e.userAgent;
  if (e.ip !== undefined) p['ip'] = e.ip;
  if (e.properties !== undefined) {
    p['properties'] = e.propertiesAsString ? JSON.stringify(e.properties) : e.properties;
  }
  return p;
}

/** One event's line (no line end). JSON.stringify writes U+0000 and lone surrogates as escapes. */
export function eventLine(e: EventModel): string {
  const payload = payloadOf(e);
  const envelope: Record<string, unknown> = {};
  if (e.envelopeType !== null) envelope['eventType'] = e.envelopeType;
  envelope['payload'] = e.payloadAsString ? JSON.stringify(payload) : payload;
  return JSON.stringify(envelope);
}

function lineText(line: LineModel): string {
  return line.kind === 'event' ? eventLine(line.event) : line.text;
}

/** The object's bytes: its lines joined by LF or CRLF, gzip-compressed when it says so. */
export function objectBody(o: ObjectModel): Buffer {
  const end = o.crlf ? '\r\n' : '\n';
  const text = o.lines
    .map((l, i) => lineText(l) + (o.noFinalNewline && i === o.lines.length - 1 ? '' : end))
    .join('');
  const raw = Buffer.from(text, 'utf8');
  // level 1: the benchmark's big stream compresses fast; the bytes are still deterministic.
  return o.gzip ? gzipSync(raw, { level: 1 }) : raw;
}
