import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeApi {
  readonly url: string;
  /** Every request's method and path (with query), in arrival order. */
  readonly seen: string[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server answering with `handler`: for hostile or odd answers the emulator does
 * not give (a body echoing the credential, a 70,000-character id).
 */
export async function startFakeApi(
  handler: (req: IncomingMessage) => { status: number; body: unknown },
): Promise<FakeApi> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const { status, body } = handler(req);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
