import type { ObjectModel } from './model.js';
import { objectModels, type StreamPlan } from './objects.js';
import { objectBody } from './serialize.js';
import { computeTruth, type EventTruth } from './truth.js';

/** One object of the bucket: its key (relative path in a folder) and its exact bytes. */
export interface EventStreamObject {
  readonly key: string;
  readonly body: Buffer;
  /** The bytes are gzip-compressed (the key still ends in .jsonl). */
  readonly gzip: boolean;
}

export interface EventStream {
  /** In key order (= time order of the names). */
  readonly objects: readonly EventStreamObject[];
  readonly truth: EventTruth;
  /** The object delivered late (named 36 h before the newest key); null with fewer than 3 days. */
  readonly lateKey: string | null;
}

export interface EventStreamOptions {
  readonly seed: number;
  /** Days of events ending the day before endDay. */
  readonly days: number;
  /** YYYY-MM-DD, exclusive. */
  readonly endDay: string;
  /** Key prefix ('' = none, the default); a trailing slash is dropped. */
  readonly prefix?: string;
  /** Deployments in the bucket, default ['acme']; a second gets about a quarter of the people. */
  readonly subdomains?: readonly string[];
  /** Objects per day (default: 1 at scale 1, about sqrt(scale) when larger; the last two days at least 2). */
  readonly objectsPerDay?: number;
  /** Multiplies people and sessions: 1 (default) is ~3,000 events over 14 days; ~650 makes ~2 million. */
  readonly scale?: number;
  /** Distinct page paths, default 3,000. */
  readonly paths?: number;
}

function planOf(o: EventStreamOptions): StreamPlan {
  const scale = o.scale ?? 1;
  if (!(scale > 0) || !Number.isInteger(o.days) || o.days < 1 || !/^\d{4}-\d{2}-\d{2}$/.test(o.endDay)) {
    throw new RangeError(`an event stream needs days >= 1, a YYYY-MM-DD endDay and scale > 0`);
  }
  return {
    seed: o.seed,
    days: o.days,
    endDay: o.endDay,
    prefix: o.prefix ?? '',
    subdomains: o.subdomains && o.subdomains.length > 0 ? o.subdomains : ['acme'],
    objectsPerDay: Math.max(1, Math.round(o.objectsPerDay ?? Math.sqrt(scale))),
    scale,
    paths: o.paths ?? 3000,
  };
}

/** The models behind each generated stream: holdBack recomputes the truth of a part from them. */
const MODELS = new WeakMap<EventStream, readonly ObjectModel[]>();

function streamOf(models: readonly ObjectModel[]): EventStream {
  const stream: EventStream = {
    objects: models.map(toObject),
    truth: computeTruth(models),
    lateKey: models.find((m) => m.late)?.key ?? null,
  };
  MODELS.set(stream, models);
  return stream;
}

function toObject(m: ObjectModel): EventStreamObject {
  return { key: m.key, body: objectBody(m), gzip: m.gzip };
}

/**
 * A deterministic, wild event stream and its ground truth (same options -> same bytes). Holds it
 * all in memory: for tests. For a big one use eventObjects and writeEventStream.
 */
export function generateEventStream(options: EventStreamOptions): EventStream {
  return streamOf([...objectModels(planOf(options))]);
}

/**
 * The same objects one at a time, never more than a day's events in memory (no truth) besides the
 * ids seen: what writeEventStream streams to a folder for the benchmark's millions of events.
 */
export function* eventObjects(
  options: EventStreamOptions,
): Generator<EventStreamObject & { newEvents: number }> {
  // Every id seen, not only the object before's: the generator's ids come from 32-bit PRNG
  // streams, and at millions of events two slices may draw the same id (scale 700: 13,494 events
  // counted twice by adjacent objects alone). Ids carry their day (sessions.ts), so a collision is
  // within one day, where the loader's check of stored keys drops it as a repeat.
  const seen = new Set<string>();
  for (const m of objectModels(planOf(options))) {
    let fresh = 0;
    for (const l of m.lines) {
      if (l.kind !== 'event' || seen.has(l.event.eventId)) continue;
      seen.add(l.event.eventId);
      fresh++;
    }
    yield { ...toObject(m), newEvents: fresh };
  }
}

/**
 * The "2 new objects and 1 late object" scenario: `first` is the stream without its `newest`
 * newest objects and without the late one (its truth is what loading it gives); `held` are those
 * objects, to deliver afterwards (then the whole stream's truth holds). The late object is named
 * before the newest key of `first`, within two days of it.
 */
export function holdBack(
  stream: EventStream,
  newest = 2,
): { first: EventStream; held: readonly EventStreamObject[] } {
  const models = MODELS.get(stream);
  if (!models) throw new TypeError('holdBack takes a stream made by generateEventStream');
  const heldKeys = new Set(models.slice(-newest).map((m) => m.key));
  if (stream.lateKey !== null) heldKeys.add(stream.lateKey);
  return {
    first: streamOf(models.filter((m) => !heldKeys.has(m.key))),
    held: stream.objects.filter((o) => heldKeys.has(o.key)),
  };
}
