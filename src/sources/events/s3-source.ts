import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
  type _Object,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { PassThrough, type Readable } from 'node:stream';
import { s3ClientFromEnv, s3EndpointFromEnv } from './s3-client.js';
import { maskUserinfo } from '../../util/url-text.js';
import { EventSourceUsageError } from './errors.js';
import type { EventSource, EventSourceOptions, EventSourceStats, TopEntry } from './event-source.js';
import { compareKeys } from './list-start.js';
import { s3Error, type S3Where } from './s3-errors.js';
import type { EventObject } from './types.js';

/**
 * An S3 bucket (or an S3-compatible store) through the AWS SDK v3, configured by the standard
 * AWS environment: the credential chain (keys, AWS_PROFILE, SSO, instance roles), AWS_REGION
 * (us-east-1 when nothing sets one; a bucket elsewhere is followed by its redirect), and
 * AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL for another store, then with path-style addressing.
 */
export interface S3Spec {
  readonly bucket: string;
  /** '' or ending with `/`. */
  readonly prefix: string;
}

const SPEC = /^s3:\/\/([^/]*)(?:\/(.*))?$/is;
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,254}$/i;

/** `s3://BUCKET[/PREFIX]`; a prefix is a folder of the bucket (`/` added). */
export function parseS3Spec(spec: string): S3Spec {
  const m = SPEC.exec(spec);
  const bucket = m?.[1] ?? '';
  if (bucket.includes('@') || bucket.includes(':')) {
    throw new EventSourceUsageError(
      `${maskUserinfo(spec).split('@')[0]}@...: give no credentials in the events URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE`,
    );
  }
  if (!BUCKET.test(bucket)) {
    throw new EventSourceUsageError(`${spec}: not an S3 location; give s3://BUCKET or s3://BUCKET/PREFIX`);
  }
  const raw = (m?.[2] ?? '').replace(/^\/+/, '');
  return { bucket, prefix: raw === '' || raw.endsWith('/') ? raw : `${raw}/` };
}

export async function openS3Source(spec: string, opts: EventSourceOptions = {}): Promise<EventSource> {
  const parsed = parseS3Spec(spec);
  const endpoint = s3EndpointFromEnv();
  const client = await s3ClientFromEnv(opts);
  return new S3Source(client, parsed, endpoint, opts);
}

/**
 * The body, with a failure while it streams (a reset, the silence bound) turned into the
 * source's coded error. Destroying the returned stream destroys the body (the connection).
 */
function mappedBody(body: Readable, map: (e: unknown) => unknown): Readable {
  const out = new PassThrough();
  body.on('error', (e) => out.destroy(map(e) as Error));
  out.on('close', () => body.destroy());
  body.pipe(out);
  return out;
}

class S3Source implements EventSource {
  readonly label: string;
  private readonly counts = { listRequests: 0, getRequests: 0 };

  constructor(
    private readonly client: S3Client,
    private readonly spec: S3Spec,
    private readonly endpoint: string | undefined,
    private readonly opts: EventSourceOptions,
  ) {
    this.label = `s3://${spec.bucket}/${spec.prefix}`;
  }

  get stats(): EventSourceStats {
    return { ...this.counts };
  }

  private where(key?: string): S3Where {
    return { label: this.label, endpoint: this.endpoint, ...(key === undefined ? {} : { key }) };
  }

  /** The SDK's per-request options: the source's signal and the caller's, either aborting. */
  private sendOptions(extra?: AbortSignal): { abortSignal?: AbortSignal } {
    const own = this.opts.signal;
    const signal = own === undefined || extra === undefined ? (own ?? extra) : AbortSignal.any([own, extra]);
    return signal === undefined ? {} : { abortSignal: signal };
  }

  async *list(startAfter?: string, under = ''): AsyncIterable<EventObject> {
    for await (const page of this.pages({ startAfter, under })) {
      for (const o of page.Contents ?? []) {
        const obj = this.object(o);
        if (obj !== undefined) yield obj;
      }
    }
  }

  async *listTop(startAfter?: string): AsyncIterable<TopEntry> {
    for await (const page of this.pages({ startAfter, under: '', delimiter: '/' })) {
      const entries: { key: string; entry: TopEntry }[] = [];
      for (const o of page.Contents ?? []) {
        const object = this.object(o);
        if (object !== undefined) entries.push({ key: object.key, entry: { object } });
      }
      for (const p of page.CommonPrefixes ?? []) {
        const prefix = (p.Prefix ?? '').slice(this.spec.prefix.length);
        if (prefix !== '') entries.push({ key: prefix, entry: { prefix } });
      }
      entries.sort((a, b) => compareKeys(a.key, b.key));
      for (const e of entries) yield e.entry;
    }
  }

  /** A listed object, relative to the source; undefined for a "folder" marker. */
  private object(o: _Object): EventObject | undefined {
    const key = (o.Key ?? '').slice(this.spec.prefix.length);
    if (key === '' || key.endsWith('/')) return undefined;
    return { key, size: o.Size ?? 0, etag: o.ETag === undefined ? null : o.ETag.replaceAll('"', '') };
  }

  /** The pages of one listing, one ListObjectsV2 request each. */
  private async *pages(q: {
    startAfter: string | undefined;
    under: string;
    delimiter?: string;
  }): AsyncIterable<ListObjectsV2CommandOutput> {
    const { bucket, prefix } = this.spec;
    const within = prefix + q.under;
    let token: string | undefined;
    do {
      this.counts.listRequests++;
      const command = new ListObjectsV2Command({
        Bucket: bucket,
        ...(within === '' ? {} : { Prefix: within }),
        ...(q.delimiter === undefined ? {} : { Delimiter: q.delimiter }),
        ...(q.startAfter === undefined ? {} : { StartAfter: prefix + q.startAfter }),
        ...(token === undefined ? {} : { ContinuationToken: token }),
        MaxKeys: this.opts.maxKeys ?? 1000,
      });
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(command, this.sendOptions());
      } catch (e) {
        throw s3Error(e, this.where());
      }
      yield page;
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async stat(key: string): Promise<EventObject | undefined> {
    this.counts.getRequests++;
    const command = new HeadObjectCommand({ Bucket: this.spec.bucket, Key: this.spec.prefix + key });
    try {
      const out = await this.client.send(command, this.sendOptions());
      const etag = out.ETag === undefined ? null : out.ETag.replaceAll('"', '');
      return { key, size: out.ContentLength ?? 0, etag };
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (e as Error).name === 'NotFound' || (e as Error).name === 'NoSuchKey')
        return undefined;
      throw s3Error(e, this.where(key));
    }
  }

  async open(obj: EventObject, signal?: AbortSignal): Promise<Readable> {
    this.counts.getRequests++;
    const command = new GetObjectCommand({
      Bucket: this.spec.bucket,
      Key: this.spec.prefix + obj.key,
      // The bytes listed, not a newer upload under the same key (the ledger records this ETag).
      ...(obj.etag === null ? {} : { IfMatch: `"${obj.etag}"` }),
    });
    try {
      const out = await this.client.send(command, this.sendOptions(signal));
      return mappedBody(out.Body as Readable, (e) => s3Error(e, this.where(obj.key)));
    } catch (e) {
      throw s3Error(e, this.where(obj.key));
    }
  }

  close(): void {
    this.client.destroy();
  }
}
