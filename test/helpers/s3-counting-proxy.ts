import { startS3Proxy } from './s3-proxy.js';

/**
 * A loopback proxy in front of an S3-protocol server (moto) that passes every request through and
 * counts them by kind: moto keeps no counts a test can read.
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
  const hooks: { onPut: ((key: string) => void) | undefined } = { onPut: undefined };
  const proxy = await startS3Proxy(target, {
    before: (req, _res, key, url) => {
      if (req.method === 'PUT') {
        counts.put++;
        putKeys.push(key);
        hooks.onPut?.(key);
      } else if (req.method === 'DELETE' || (req.method === 'POST' && url.searchParams.has('delete'))) {
        counts.deleteRequests++;
      } else if (req.method === 'GET' && key === '') counts.list++;
      else if (req.method === 'GET' || req.method === 'HEAD') counts.get++;
      return false;
    },
  });
  return {
    url: proxy.url,
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
    stop: () => proxy.stop(),
  };
}
