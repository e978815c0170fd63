/**
 * One event of Mintlify's Enterprise event stream as it is stored (table analytics_events, see
 * sql/schema/010_event_stream.sql), before the project is known. Every text is storable on both
 * destinations (U+0000 and lone surrogates became U+FFFD). `ip` is not here: it only ever feeds
 * `visitor_key`.
 */
export interface ParsedEvent {
  readonly event_id: string;
  /** The envelope's eventType, else the payload's `event`; null when neither says. */
  readonly event_type: string | null;
  readonly subdomain: string | null;
  /** The instant in UTC, microseconds kept: `2026-11-27T08:15:00.123456Z`. */
  readonly created_at: string;
  /** The UTC day of created_at: `2026-11-27`. */
  readonly day: string;
  readonly path: string | null;
  readonly referrer: string | null;
  /** The referrer URL's host name in lower case, without `www.`; null when there is none or it is not a URL. */
  readonly referrer_host: string | null;
  readonly traffic_class: TrafficClass;
  /** HMAC-SHA-256 hex of the visitor (anon_id, else ip and user agent); null when neither is known. */
  readonly visitor_key: string | null;
  readonly anon_id: string | null;
  readonly session_id: string | null;
  readonly user_id: string | null;
  readonly user_agent: string | null;
  /** `properties` as JSON text (an object, or whatever JSON value the stream sent), null when absent. */
  readonly properties: string | null;
}

/** A stored event: its project and the object it was read from are known. */
export interface EventRow extends ParsedEvent {
  readonly project_id: string;
  readonly object_key: string;
}

export const TRAFFIC_CLASSES = ['human', 'ai_answers', 'search_index', 'training', 'other_bot'] as const;
export type TrafficClass = (typeof TRAFFIC_CLASSES)[number];

/**
 * The stored columns of analytics_events besides project_id and the bookkeeping (run_id,
 * loaded_at), in table order: what a stage holds and what export writes.
 */
export const EVENT_COLUMNS = [
  'event_id',
  'event_type',
  'subdomain',
  'created_at',
  'day',
  'path',
  'referrer',
  'referrer_host',
  'traffic_class',
  'visitor_key',
  'anon_id',
  'session_id',
  'user_id',
  'user_agent',
  'properties',
  'object_key',
] as const satisfies readonly (keyof EventRow)[];
