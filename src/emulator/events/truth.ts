import type { TrafficClass } from '../../load/event-rows.js';
import { TRAFFIC_CLASSES } from '../../load/event-rows.js';
import type { EventModel, ObjectModel, RejectKind } from './model.js';
import { classifyUserAgent } from './user-agents.js';

/** One distinct event as a correct loader stores it (ip aside: it only makes the visitor). */
export interface TruthEvent {
  readonly event_id: string;
  readonly event_type: string | null;
  readonly subdomain: string;
  /** UTC, microseconds: `2026-11-27T08:15:00.123456Z`. */
  readonly created_at: string;
  readonly day: string;
  readonly path: string | null;
  readonly referrer: string | null;
  /** The referrer's host (WHATWG URL) in lower case without `www.`; null when none or not a URL. */
  readonly referrer_host: string | null;
  readonly traffic_class: TrafficClass;
  /** As sent: null when absent or null, '' stays ''. */
  readonly anon_id: string | null;
  readonly session_id: string | null;
  readonly user_id: string | null;
  readonly user_agent: string | null;
  /** The properties as a JSON value (a JSON-string form decoded), undefined when absent. */
  readonly properties: unknown;
  /** The first object holding it, in key order. */
  readonly object_key: string;
  /** The visitor: `anon:<anon_id>`, else `pair:<ip>\u0001<ua>` of the raw values; null when none. */
  readonly visitor: string | null;
}

export interface VisitorCounts {
  readonly human: number;
  readonly ai: number;
  readonly total: number;
}

export interface FunnelCounts {
  readonly searchQueries: number;
  readonly searchResultClicks: number;
  readonly searchesClosed: number;
  readonly assistantEntered: number;
  readonly assistantCompleted: number;
  readonly assistantSourceClicked: number;
}

/** What a correct load of the stream must hold, computed from the generator's model. */
export interface EventTruth {
  /** Distinct events by event_id, sorted by event_id. */
  readonly events: readonly TruthEvent[];
  /** Per key, in key order. */
  readonly keys: readonly string[];
  readonly linesByObject: Readonly<Record<string, number>>;
  /** Lines that are events, repeats included (the ledger's `events`). */
  readonly eventLinesByObject: Readonly<Record<string, number>>;
  /** Events an object adds when objects load in key order (the ledger's `new_events`). */
  readonly newEventsByObject: Readonly<Record<string, number>>;
  readonly rejectedByObject: Readonly<Record<string, number>>;
  readonly rejectedByReason: Readonly<Record<RejectKind, number>>;
  readonly blankByObject: Readonly<Record<string, number>>;
  /** Days with events, ascending. */
  readonly days: readonly string[];
  visitorsDaily(subdomain?: string): Record<string, VisitorCounts>;
  /** True uniques of [fromDay, toDay). */
  visitorsBetween(fromDay: string, toDay: string, subdomain?: string): VisitorCounts;
  /** Per day and class (all five classes every day with events): views and visitors. */
  trafficDaily(subdomain?: string): Record<string, Record<TrafficClass, { views: number; visitors: number }>>;
  funnelsDaily(subdomain?: string): Record<string, FunnelCounts>;
  /** Per day, per event_type (null as the text 'null'): counts of distinct events. */
  eventTypesDaily(subdomain?: string): Record<string, Record<string, number>>;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as both destinations can store it: U+0000 and lone surrogates become U+FFFD. */
export function storable(text: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is what it replaces
  return text.replace(/\u0000/g, '\ufffd').replace(LONE_SURROGATE, '\ufffd');
}

function storableValue(v: unknown): unknown {
  if (typeof v === 'string') return storable(v);
  if (Array.isArray(v)) return v.map(storableValue);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [storable(k), storableValue(x)]));
  }
  return v;
}

const text = (v: string | null | undefined): string | null =>
  v === null || v === undefined ? null : storable(v);

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` of an instant in microseconds. */
export function utcMicros(micros: number): string {
  const secs = Math.floor(micros / 1_000_000);
  const frac = String(micros - secs * 1_000_000).padStart(6, '0');
  return `${new Date(secs * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}

/** `https://WWW.Reddit.com/r/x` -> `reddit.com`; '' or `not a url` -> null. */
export function referrerHost(referrer: string | null): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase();
  } catch {
    return null;
  }
  host = host.replace(/^www\./, '');
  return host === '' ? null : host;
}

export function visitorOf(e: Pick<EventModel, 'anonId' | 'ip' | 'userAgent'>): string | null {
  if (e.anonId) return `anon:${e.anonId}`;
  // The pair needs its address: user agents alone would make one visitor of many people.
  if (e.ip === undefined || e.ip === '') return null;
  return `pair:${e.ip ?? ''}\u0001${e.userAgent ?? ''}`;
}

export function truthEvent(e: EventModel, objectKey: string): TruthEvent {
  const createdAt = utcMicros(e.micros);
  return {
    event_id: e.eventId,
    event_type: text(e.envelopeType ?? e.payloadEvent),
    subdomain: storable(e.subdomain),
    created_at: createdAt,
    day: createdAt.slice(0, 10),
    path: text(e.path),
    referrer: text(e.referrer),
    referrer_host: referrerHost(e.referrer),
    traffic_class: classifyUserAgent(e.userAgent),
    anon_id: text(e.anonId),
    session_id: text(e.sessionId),
    user_id: text(e.userId),
    user_agent: text(e.userAgent),
    properties: storableValue(e.properties),
    object_key: objectKey,
    visitor: visitorOf(e),
  };
}

/** Per-object counts and the distinct events, objects read in key order. */
export function computeTruth(objects: readonly ObjectModel[]): EventTruth {
  const sorted = [...objects].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byId = new Map<string, TruthEvent>();
  const lines: Record<string, number> = {};
  const eventLines: Record<string, number> = {};
  const newEvents: Record<string, number> = {};
  const rejected: Record<string, number> = {};
  const blank: Record<string, number> = {};
  const byReason: Record<RejectKind, number> = {
    'not-json': 0,
    'no-event-id': 0,
    'payload-not-json': 0,
    'bad-created-at': 0,
  };
  for (const o of sorted) {
    lines[o.key] = o.lines.length;
    eventLines[o.key] = rejected[o.key] = blank[o.key] = newEvents[o.key] = 0;
    for (const l of o.lines) {
      if (l.kind === 'blank') blank[o.key]!++;
      else if (l.kind === 'rejected') {
        rejected[o.key]!++;
        byReason[l.reason]++;
      } else {
        eventLines[o.key]!++;
        if (!byId.has(l.event.eventId)) {
          byId.set(l.event.eventId, truthEvent(l.event, o.key));
          newEvents[o.key]!++;
        }
      }
    }
  }
  const events = [...byId.values()].sort((a, b) => (a.event_id < b.event_id ? -1 : 1));
  return {
    events,
    keys: sorted.map((o) => o.key),
    linesByObject: lines,
    eventLinesByObject: eventLines,
    newEventsByObject: newEvents,
    rejectedByObject: rejected,
    rejectedByReason: byReason,
    blankByObject: blank,
    days: [...new Set(events.map((e) => e.day))].sort(),
    ...aggregates(events),
  };
}

const PAGE_VIEWS = new Set(['docs.content.view', 'docs.content.md.view']);

/** The dashboard's sets: human visitors, AI visitors (see the issue), by day. */
function isHumanView(e: TruthEvent): boolean {
  return e.event_type === 'docs.content.view' && e.traffic_class === 'human';
}
function isAiView(e: TruthEvent): boolean {
  return (
    (e.event_type !== null && PAGE_VIEWS.has(e.event_type) && e.traffic_class === 'ai_answers') ||
    (e.event_type === 'docs.content.md.view' && e.traffic_class === 'human')
  );
}

function counts(events: Iterable<TruthEvent>): VisitorCounts {
  const human = new Set<string>();
  const ai = new Set<string>();
  for (const e of events) {
    if (e.visitor === null) continue;
    if (isHumanView(e)) human.add(e.visitor);
    if (isAiView(e)) ai.add(e.visitor);
  }
  return { human: human.size, ai: ai.size, total: new Set([...human, ...ai]).size };
}

function groupByDay(events: readonly TruthEvent[], subdomain?: string): Map<string, TruthEvent[]> {
  const out = new Map<string, TruthEvent[]>();
  for (const e of events) {
    if (subdomain !== undefined && e.subdomain !== subdomain) continue;
    const list = out.get(e.day) ?? [];
    list.push(e);
    out.set(e.day, list);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const FUNNEL: ReadonlyArray<readonly [keyof FunnelCounts, string]> = [
  ['searchQueries', 'docs.search.query'],
  ['searchResultClicks', 'docs.search.result_click'],
  ['searchesClosed', 'docs.search.close'],
  ['assistantEntered', 'docs.assistant.enter'],
  ['assistantCompleted', 'docs.assistant.completed'],
  ['assistantSourceClicked', 'docs.assistant.source_click'],
];

function aggregates(
  events: readonly TruthEvent[],
): Pick<
  EventTruth,
  'visitorsDaily' | 'visitorsBetween' | 'trafficDaily' | 'funnelsDaily' | 'eventTypesDaily'
> {
  const perDay = <T>(subdomain: string | undefined, f: (list: TruthEvent[]) => T): Record<string, T> =>
    Object.fromEntries([...groupByDay(events, subdomain)].map(([day, list]) => [day, f(list)]));
  return {
    visitorsDaily: (subdomain) => perDay(subdomain, counts),
    visitorsBetween: (fromDay, toDay, subdomain) =>
      counts(
        events.filter(
          (e) => e.day >= fromDay && e.day < toDay && (subdomain === undefined || e.subdomain === subdomain),
        ),
      ),
    trafficDaily: (subdomain) =>
      perDay(subdomain, (list) => {
        const row = {} as Record<TrafficClass, { views: number; visitors: number }>;
        for (const cls of TRAFFIC_CLASSES) {
          const views = list.filter(
            (e) => e.traffic_class === cls && e.event_type !== null && PAGE_VIEWS.has(e.event_type),
          );
          const visitors = new Set(views.flatMap((e) => (e.visitor === null ? [] : [e.visitor])));
          row[cls] = { views: views.length, visitors: visitors.size };
        }
        return row;
      }),
    funnelsDaily: (subdomain) =>
      perDay(subdomain, (list) => {
        const row = {} as Record<keyof FunnelCounts, number>;
        for (const [name, type] of FUNNEL) row[name] = list.filter((e) => e.event_type === type).length;
        return row;
      }),
    eventTypesDaily: (subdomain) =>
      perDay(subdomain, (list) => {
        const row: Record<string, number> = {};
        for (const e of list) row[String(e.event_type)] = (row[String(e.event_type)] ?? 0) + 1;
        return row;
      }),
  };
}
