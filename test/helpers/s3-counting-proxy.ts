import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of an S3-protocol server (moto) that passes every request through and
 * counts them by kind: moto keeps no counts a test can read. Path-style requests only (the tool
 * uses path style with AWS_ENDPOINT_URL_S3).
 */
export interface S3RequestCounts {
  /** PutObject (and every other PUT). */
  put: number;
  /** ListObjectsV2 pages. */
  list: number;
  /** GetObject and HeadObject. */
  get: number;
  /** DeleteObject and DeleteObjects (one request deletes up to 1,000 keys). */
  deleteRequests: number;
}

export interface S3CountingProxy {
  readonly url: string;
  /** Counts since the last reset(). */
  readonly counts: S3RequestCounts;
  /** Keys (without the bucket) written by PUT since the last reset(). */
  readonly putKeys: string[];
  /** Called with each PUT's key as its request arrives, before it is passed on (e.g. to kill the client). */
  onPut: ((key: string) => void) | undefined;
  reset(): void;
  stop(): Promise<void>;
}

export async function startS3CountingProxy(target: string): Promise<S3CountingProxy> {
  const counts: S3RequestCounts = { put: 0, list: 0, get: 0, deleteRequests: 0 };
  const putKeys: string[] = [];
  const open = new Set<ServerResponse>();
  const hooks: { onPut: ((key: string) => void) | undefined } = { onPut: undefined };
  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const url = new URL(req.url ?? '/', 'http://x');
    const key = decodeURIComponent(url.pathname).split('/').slice(2).join('/');
    if (req.method === 'PUT') {
      counts.put++;
      putKeys.push(key);
      hooks.onPut?.(key);
    } else if (req.method === 'DELETE' || (req.method === 'POST' && url.searchParams.has('delete'))) {
      counts.deleteRequests++;
    } else if (req.method === 'GET' && key === '') counts.list++;
    else if (req.method === 'GET' || req.method === 'HEAD') counts.get++;
    const up = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get onPut() {
      return hooks.onPut;
    },
    set onPut(fn) {
      hooks.onPut = fn;
    },
    counts,
    putKeys,
    reset: () => {
      counts.put = 0;
      counts.list = 0;
      counts.get = 0;
      counts.deleteRequests = 0;
      putKeys.length = 0;
    },
    stop: async () => {
      for (const r of open) r.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
