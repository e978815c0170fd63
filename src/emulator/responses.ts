import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FaultKind } from './faults.js';
import { retryAfterDate } from './http.js';

export interface Answer {
  status: number;
  body: string;
  headers?: OutgoingHttpHeaders;
}

export function json(status: number, payload: unknown, headers: OutgoingHttpHeaders = {}): Answer {
  return {
    status,
    body: JSON.stringify(payload),
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  };
}

const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** What a failing fault answers; undefined for kinds that are not a plain error answer (reset, slow). */
export function faultAnswer(kind: FaultKind, retryAfterSeconds: number): Answer | undefined {
  switch (kind) {
    case 'rate-limit-seconds':
      return json(429, { error: 'Rate limit exceeded' }, { 'retry-after': String(retryAfterSeconds) });
    case 'rate-limit-date':
      return json(
        429,
        { error: 'Rate limit exceeded' },
        { 'retry-after': retryAfterDate(retryAfterSeconds) },
      );
    case 'server-error':
      return json(500, { error: 'Internal server error' });
    case 'bad-gateway':
      return { status: 502, body: BAD_GATEWAY_HTML, headers: { 'content-type': 'text/html' } };
    case 'unavailable':
      return {
        status: 503,
        body: 'Service Unavailable',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      };
    default:
      return undefined;
  }
}

export function writeAnswer(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.writableEnded) return;
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, { ...answer.headers, 'content-length': body.length });
  res.end(body);
}

/** Announces the whole body, sends part of it, then drops the connection: a reset mid-body. */
export function writeTruncated(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.writableEnded) return;
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, { ...answer.headers, 'content-length': body.length });
  res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => res.socket?.destroy());
}
