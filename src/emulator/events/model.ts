/**
 * The generator's model of the stream: what each event IS (its intended stored values), apart
 * from how its line is written. The truth reads only this model, never the bytes, so it stays
 * an oracle independent of any parser.
 */

/** One event as meant: the values a correct loader stores, before text is made storable. */
export interface EventModel {
  readonly eventId: string;
  /** The envelope's eventType; null when the line leaves it out (then payload.event names it). */
  readonly envelopeType: string | null;
  /** The payload's `event`; null when the payload leaves it out. */
  readonly payloadEvent: string | null;
  readonly subdomain: string;
  readonly userId: string | null;
  /** undefined: the key is absent; '' counts as no anon_id for the visitor. */
  readonly anonId: string | null | undefined;
  readonly sessionId: string | null;
  /** The instant, microseconds since the epoch (exact in a double until the year 2255). */
  readonly micros: number;
  /** The offset created_at is written with, in minutes east of UTC (0 is written as Z). */
  readonly offsetMinutes: number;
  /** Fraction digits written: 0, 3 or 6 (the instant is whole seconds or milliseconds for 0 and 3). */
  readonly fractionDigits: 0 | 3 | 6;
  readonly path: string | null;
  readonly referrer: string | null;
  readonly userAgent: string | null;
  /** undefined: the key is absent. */
  readonly ip: string | undefined;
  /** undefined: the key is absent. */
  readonly properties: unknown;
  /** How the line is written (not what it means). */
  readonly payloadAsString: boolean;
  readonly propertiesAsString: boolean;
}

/** Why a line is refused; the names of src/sources/events/types.ts, kept apart on purpose. */
export type RejectKind = 'not-json' | 'no-event-id' | 'payload-not-json' | 'bad-created-at';

/** One line of an object as meant. */
export type LineModel =
  | { readonly kind: 'event'; readonly event: EventModel }
  | { readonly kind: 'rejected'; readonly reason: RejectKind; readonly text: string }
  /** Empty or only spaces and tabs. */
  | { readonly kind: 'blank'; readonly text: string };

/** One object of the bucket as meant. */
export interface ObjectModel {
  readonly key: string;
  readonly lines: readonly LineModel[];
  /** Lines end with CRLF instead of LF. */
  readonly crlf: boolean;
  /** The last line has no line end. */
  readonly noFinalNewline: boolean;
  /** The bytes are gzip-compressed, whatever the key says. */
  readonly gzip: boolean;
  /** This object is the one delivered late (named up to two days before the newest key). */
  readonly late: boolean;
}
