/** What the event source (S3 or a folder) says about objects and lines; rows are in src/load/event-rows.ts. */

/**
 * Why a line was not loaded. The last three are lines a destination cannot store, refused alike
 * for both by the limits in parse-line.ts: JSON nested deeper than MAX_JSON_DEPTH, an event_id
 * longer than MAX_EVENT_ID_CHARS (PostgreSQL's unique index), a number in properties that
 * PostgreSQL's numeric cannot hold.
 */
export type RejectReason =
  | 'not-json'
  | 'no-event-id'
  | 'payload-not-json'
  | 'bad-created-at'
  | 'too-deep'
  | 'event-id-too-long'
  | 'number-out-of-range';

/** One object of the stream as its listing gives it. */
export interface EventObject {
  /** The key under the source (the bucket's key; a folder's relative path with `/`). */
  readonly key: string;
  readonly size: number;
  /** The ETag (S3) or a stand-in that changes when the file does (folder: size and mtime). */
  readonly etag: string | null;
}
