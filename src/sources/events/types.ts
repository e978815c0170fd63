/** What the event source (S3 or a folder) says about objects and lines; rows are in src/load/event-rows.ts. */

/** Why a line was not loaded. */
export type RejectReason = 'not-json' | 'no-event-id' | 'payload-not-json' | 'bad-created-at';

/** One object of the stream as its listing gives it. */
export interface EventObject {
  /** The key under the source (the bucket's key; a folder's relative path with `/`). */
  readonly key: string;
  readonly size: number;
  /** The ETag (S3) or a stand-in that changes when the file does (folder: size and mtime). */
  readonly etag: string | null;
}
