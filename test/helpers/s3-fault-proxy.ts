import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    // Path style: /bucket/key...
    const key = path.split('/').slice(2).join('/');
    if (req.method === 'GET' && key !== '') gets.set(key, (gets.get(key) ?? 0) + 1);
    const fault = key === '' ? undefined : faults.get(key);
    if (fault?.kind === 'forbidden' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(req.method === 'HEAD' ? undefined : ACCESS_DENIED);
      return;
    }
    const up = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (fault?.kind === 'trickle' && req.method === 'GET') trickle(answer, res, fault.ms);
        else answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    gets,
    stop: async () => {
      for (const r of open) r.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
