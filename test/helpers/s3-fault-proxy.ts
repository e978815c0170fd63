import type { IncomingMessage, ServerResponse } from 'node:http';
import { startS3Proxy } from './s3-proxy.js';

/**
 * A loopback proxy in front of an S3-protocol server (moto) that passes every request through,
 * except for the keys given a fault: `forbidden` answers 403 AccessDenied to GET and HEAD of that
 * key alone (a bucket policy that leaves one object out, while listing works); `trickle` sends
 * the real body one byte every `ms` (a server too slow for the object's size).
 */
export type S3Fault = { readonly kind: 'forbidden' } | { readonly kind: 'trickle'; readonly ms: number };

export interface S3FaultProxy {
  readonly url: string;
  /** By the key's full path in the bucket (`prefix/key`), without the bucket. */
  readonly faults: Map<string, S3Fault>;
  /** GET requests seen per key path. */
  readonly gets: Map<string, number>;
  stop(): Promise<void>;
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>1</RequestId></Error>';

export async function startS3FaultProxy(target: string): Promise<S3FaultProxy> {
  const faults = new Map<string, S3Fault>();
  const gets = new Map<string, number>();
  const proxy = await startS3Proxy(target, {
    before: (req, res, key) => {
      if (req.method === 'GET' && key !== '') gets.set(key, (gets.get(key) ?? 0) + 1);
      const fault = key === '' ? undefined : faults.get(key);
      if (fault?.kind !== 'forbidden' || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(req.method === 'HEAD' ? undefined : ACCESS_DENIED);
      return true;
    },
    relay: (req, answer, res, key) => {
      const fault = key === '' ? undefined : faults.get(key);
      if (fault?.kind === 'trickle' && req.method === 'GET') trickle(answer, res, fault.ms);
      else answer.pipe(res);
    },
  });
  return { url: proxy.url, faults, gets, stop: () => proxy.stop() };
}

/** The whole body from upstream, then one byte every `ms` until the client goes away. */
function trickle(answer: IncomingMessage, res: ServerResponse, ms: number): void {
  const chunks: Buffer[] = [];
  answer.on('data', (c: Buffer) => chunks.push(c));
  answer.on('end', () => {
    const body = Buffer.concat(chunks);
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed || at >= body.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(body.subarray(at, at + 1));
      at++;
    }, ms);
    res.on('close', () => clearInterval(timer));
  });
}
