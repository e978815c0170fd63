import type { Readable } from 'node:stream';
import type { EventObject } from './types.js';

/**
 * Where the event stream is read from: an S3 bucket (`s3://BUCKET[/PREFIX]`) or a local folder
 * laid out like it (a mirror made with `aws s3 sync` or rclone). Both list keys in S3's order
 * (UTF-8 bytes), relative to the source, and open an object as a byte stream.
 */
export interface EventSourceStats {
  /** List requests made (S3: ListObjectsV2 pages; a folder: one per listing). */
  readonly listRequests: number;
  /** Objects opened (S3: GetObject requests). */
  readonly getRequests: number;
}

/** An entry of the level right under the source: an object there, or a sub-prefix (`docs/`). */
export type TopEntry = { readonly object: EventObject } | { readonly prefix: string };

export interface EventSource {
  /** `s3://bucket/prefix/` or `file:///abs/path/`: never a credential. */
  readonly label: string;
  /**
   * The objects under the source (or under its sub-prefix `under`, `docs/`) whose key is after
   * `startAfter`, in UTF-8 byte order. Keys are relative to the source, `under` included.
   */
  list(startAfter?: string, under?: string): AsyncIterable<EventObject>;
  /**
   * The level right under the source, in UTF-8 byte order: its objects and its sub-prefixes (each
   * once, `docs/`) after `startAfter` (S3: one listing with Delimiter '/').
   */
  listTop(startAfter?: string): AsyncIterable<TopEntry>;
  /**
   * The object under `key` as a listing would give it now (its size and ETag), or undefined when
   * there is none: how a run reads again an object that failed, wherever the listing starts.
   */
  stat(key: string): Promise<EventObject | undefined>;
  /** The object's bytes as stored (gzip or not; see object-lines.ts). */
  open(obj: EventObject, signal?: AbortSignal): Promise<Readable>;
  readonly stats: EventSourceStats;
  close(): void;
}

export interface EventSourceOptions {
  /** S3: keys per list page (1000, S3's maximum; smaller in tests). */
  readonly maxKeys?: number;
  /** Cancels every request of the source (S3); a folder ignores it. */
  readonly signal?: AbortSignal;
  /** S3: bound on connecting, ms (default 5000). */
  readonly connectionTimeoutMs?: number;
  /** S3: bound on waiting for an answer, and on silence while a body streams, ms (default 60000). */
  readonly requestTimeoutMs?: number;
  /** S3: attempts per request, the SDK's retries included (default 3). */
  readonly maxAttempts?: number;
}

const S3_SPEC = /^s3:\/\//i;

/** Node 20: the SDK warns on every client that its releases after January 2027 need Node 22. */
function quietSdkOnNode20(): void {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
}

/** Opens the source `spec` names: `s3://...` is S3, anything else a local folder (or a file:// URL). */
export async function openEventSource(spec: string, opts: EventSourceOptions = {}): Promise<EventSource> {
  // Each kind loads on first use: a folder run never loads the AWS SDK.
  if (S3_SPEC.test(spec)) {
    quietSdkOnNode20();
    const { openS3Source } = await import('./s3-source.js');
    return openS3Source(spec, opts);
  }
  const { openFolderSource } = await import('./folder-source.js');
  return openFolderSource(spec);
}
