import { addDays, dayNumber } from '../days.js';
import { mixSeed, mulberry32, randomInt, type Random } from '../prng.js';
import type { EventModel, LineModel, ObjectModel, RejectKind } from './model.js';
import { population, uuidFrom } from './people.js';
import { payloadOf } from './serialize.js';
import { sliceEvents } from './sessions.js';
import { pagePaths } from './wild.js';

/** What the stream is made from; see generateEventStream for the defaults. */
export interface StreamPlan {
  readonly seed: number;
  readonly days: number;
  /** The day after the last one (exclusive), YYYY-MM-DD. */
  readonly endDay: string;
  readonly prefix: string;
  readonly subdomains: readonly string[];
  readonly objectsPerDay: number;
  readonly scale: number;
  readonly paths: number;
}

const HOUR_MS = 3_600_000;
/** Objects are named a few minutes after the last event they can hold, as a delivery would be. */
const DELIVERY_DELAY_MS = 7 * 60_000;

/** The object key for a delivery instant: `PREFIX/2026-11-27T08:15:00.000Z.jsonl`; sorting keys sorts time. */
export function objectKey(prefix: string, ms: number, ext = '.jsonl'): string {
  const p = prefix.replace(/\/+$/, '');
  return `${p === '' ? '' : `${p}/`}${new Date(ms).toISOString()}${ext}`;
}

/**
 * The day indexes with no events: the third day has only an empty object (an outage with a delivery),
 * the sixth has nothing at all. Fewer days keep every day.
 */
function dayShape(i: number, days: number): 'empty-object' | 'nothing' | 'events' {
  if (days >= 5 && i === 2) return 'empty-object';
  if (days >= 8 && i === 5) return 'nothing';
  return 'events';
}

/**
 * The objects of the stream in key order, made one day at a time (a huge stream never sits in
 * memory): each day's events split into time slices, one object per slice, then made wild.
 */
export function* objectModels(plan: StreamPlan): Generator<ObjectModel> {
  const people = population(plan.seed, plan.scale, plan.subdomains);
  const paths = [...new Set(pagePaths(plan.paths))];
  const first = addDays(plan.endDay, -plan.days);
  let carry: readonly EventModel[] = [];
  let index = 0;
  for (let i = 0; i < plan.days; i++) {
    const day = addDays(first, i);
    const dayNum = dayNumber(day);
    const dayMs = dayNum * 86_400_000;
    const shape = dayShape(i, plan.days);
    if (shape === 'nothing') continue;
    if (shape === 'empty-object') {
      yield plainObject(objectKey(plan.prefix, dayMs + 12 * HOUR_MS), []);
      // Repeats come from the object just before (eventObjects counts new events by that).
      carry = [];
      index++;
      continue;
    }
    const random = mulberry32(mixSeed(plan.seed, dayNum, 0x0b1ec7));
    // The last two days have at least two objects: the newest two keys, and the late one before them.
    const lastTwo = i >= plan.days - 2;
    const k = lastTwo ? Math.max(2, plan.objectsPerDay) : plan.objectsPerDay + (random() < 0.3 ? 1 : 0);
    // The late object: the first of the day before the last, 24 to 48 h before the newest key.
    const lateDay = plan.days >= 3 && i === plan.days - 2;
    for (let j = 0; j < k; j++) {
      const end = dayMs + Math.round(((j + 1) * 86_400_000) / k);
      const slice = sliceEvents(
        plan.seed,
        { dayNum, dayIndex: i, index: j, of: k },
        people,
        paths,
        plan.scale,
      );
      const isLate = lateDay && j === 0;
      const o = wildObject(
        random,
        objectKey(plan.prefix, end + DELIVERY_DELAY_MS),
        slice,
        isLate ? [] : carry,
        index,
        isLate,
      );
      // Repeats go forward in key order only, and never out of the late object nor into it.
      carry = isLate ? [] : slice;
      index++;
      yield o;
    }
  }
}

function plainObject(key: string, lines: LineModel[]): ObjectModel {
  return { key, lines, crlf: false, noFinalNewline: false, gzip: false, late: false };
}

/**
 * An object's lines made wild: repeats of its own events and of the previous object's (identical
 * lines), rejected lines of each kind, blank lines; CRLF, no final newline, gzip bytes. The first
 * objects get every kind for sure, so even a tiny stream holds them all.
 */
function wildObject(
  random: Random,
  key: string,
  events: readonly EventModel[],
  previous: readonly EventModel[],
  index: number,
  late: boolean,
): ObjectModel {
  const lines: LineModel[] = events.map((event) => ({ kind: 'event', event }));
  const insert = (line: LineModel): void => {
    lines.splice(randomInt(random, 0, lines.length), 0, line);
  };
  const sure = index <= 1;
  if (events.length > 0 && (sure || random() < 0.5)) {
    for (let n = randomInt(random, 1, 2); n > 0; n--) {
      const at = randomInt(random, 0, lines.length - 1);
      const line = lines[at]!;
      lines.splice(randomInt(random, at + 1, lines.length), 0, line);
    }
  }
  if (previous.length > 0 && (index === 1 || random() < 0.5)) {
    for (let n = randomInt(random, 1, 2); n > 0; n--)
      insert({ kind: 'event', event: previous[randomInt(random, 0, previous.length - 1)]! });
  }
  for (const reason of REJECT_KINDS) {
    if (sure || random() < 0.3)
      insert({ kind: 'rejected', reason, text: rejectedLine(random, reason, events[0]) });
  }
  if (sure || random() < 0.4) insert({ kind: 'blank', text: '' });
  if (sure || random() < 0.2) insert({ kind: 'blank', text: ' \t ' });
  const crlf = index === 1 || random() < 0.2;
  const noFinalNewline = index === 0 || random() < 0.15;
  const gzip = index === 1 || random() < 0.2;
  if (noFinalNewline) keepLastLineVisible(lines);
  return { key, lines, crlf, noFinalNewline, gzip, late };
}

/**
 * Without a final line end, an empty last line is no line in the bytes (`a\n` is one line): the
 * truth would count a line no reader sees. Such a line moves one place up, inside the object.
 */
function keepLastLineVisible(lines: LineModel[]): void {
  const last = lines.at(-1);
  if (last?.kind !== 'blank' || last.text !== '') return;
  if (lines.length === 1) lines[0] = { kind: 'blank', text: ' ' };
  else [lines[lines.length - 2], lines[lines.length - 1]] = [last, lines[lines.length - 2]!];
}

const REJECT_KINDS: readonly RejectKind[] = ['not-json', 'no-event-id', 'payload-not-json', 'bad-created-at'];

/** A line a loader must refuse for exactly one reason (the others hold). */
function rejectedLine(random: Random, reason: RejectKind, like: EventModel | undefined): string {
  const createdAt = '2026-01-01T00:00:00.000Z';
  switch (reason) {
    case 'not-json':
      return [
        '{"eventType":"docs.content.view","payload":{"event_id":"',
        'not json at all',
        "{'eventType': 'docs.search.query'}",
      ][randomInt(random, 0, 2)]!;
    case 'no-event-id':
      return random() < 0.5
        ? JSON.stringify({
            eventType: 'docs.content.view',
            payload: { subdomain: 'acme', created_at: createdAt, path: '/x' },
          })
        : JSON.stringify({ eventType: 'docs.search.query' });
    case 'payload-not-json':
      return JSON.stringify({ eventType: 'docs.content.view', payload: '{"event_id": "truncated' });
    case 'bad-created-at': {
      const created = ['not a time', 'yesterday at noon', '2026-11-27T25:61:00Z'][randomInt(random, 0, 2)]!;
      const base = like ?? null;
      const payload = base
        ? { ...payloadOf(base, created), event_id: uuidFrom(random) }
        : { event_id: uuidFrom(random), subdomain: 'acme', created_at: created };
      return JSON.stringify({ eventType: 'docs.content.view', payload });
    }
  }
}
