import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of an S3-protocol server (moto) that passes every request through, for
 * the tests' proxies that count requests (s3-counting-proxy.ts) or inject faults
 * (s3-fault-proxy.ts). Path-style requests only (the tool uses path style with
 * AWS_ENDPOINT_URL_S3): the key is the path without its bucket, '' for the bucket itself.
 */
export interface S3ProxyHooks {
  /** Sees each request first; returns true when it answered the request itself. */
  readonly before?: (req: IncomingMessage, res: ServerResponse, key: string, url: URL) => boolean;
  /** Sends the server's answer body on to the client (default: piped as it comes). */
  readonly relay?: (req: IncomingMessage, answer: IncomingMessage, res: ServerResponse, key: string) => void;
}

export interface S3Proxy {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startS3Proxy(target: string, hooks: S3ProxyHooks): Promise<S3Proxy> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const url = new URL(req.url ?? '/', 'http://x');
    const key = decodeURIComponent(url.pathname).split('/').slice(2).join('/');
    if (hooks.before?.(req, res, key, url) === true) return;
    const up = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (hooks.relay === undefined) answer.pipe(res);
        else hooks.relay(req, answer, res, key);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      for (const r of open) r.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
