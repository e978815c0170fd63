import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  /** A Slack-like URL whose path is the secret. */
  readonly url: string;
  readonly token: string;
  /** Every body POSTed, parsed, in order. */
  readonly bodies: unknown[];
  /** The bodies answered 200. */
  readonly accepted: unknown[];
  close(): Promise<void>;
}

/** A loopback webhook: answers each POST with the next status of `statuses` (the last repeats). */
export async function startWebhookReceiver(statuses: readonly number[]): Promise<WebhookReceiver> {
  const bodies: unknown[] = [];
  const accepted: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      const status = statuses[Math.min(bodies.length, statuses.length - 1)] ?? 200;
      const body: unknown = JSON.parse(text);
      bodies.push(body);
      if (status === 200) accepted.push(body);
      res.writeHead(status).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const token = 'xoxTOKEN-s3cr3t-7Qz9';
  return {
    url: `http://127.0.0.1:${port}/services/T0/B0/${token}`,
    token,
    bodies,
    accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
