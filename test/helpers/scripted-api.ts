import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface ScriptedCall {
  /** The path below /v1/analytics/{project}/, e.g. `feedback` or `assistant/threads/t1`. */
  readonly endpoint: string;
  readonly query: URLSearchParams;
}

/** An answer other than 200, e.g. the 400 of a cursor the service refuses. */
export class Refusal {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {}
}

/** The body of a 200 answer to one call, a Refusal, or undefined for a 404 naming the endpoint. */
export type Script = (call: ScriptedCall) => unknown;

export interface ScriptedApi {
  readonly url: string;
  /** Every call answered, in order. */
  readonly calls: ScriptedCall[];
  /** How many calls went to this endpoint. */
  count(endpoint: string): number;
}

/**
 * Starts scripted analytics APIs for the tests of one file, each closed after its test: a page
 * the emulator would never send (a cursor on a last page, two terms one case apart) is one line
 * of a script. Call it at the top of the file (it registers the afterEach).
 */
export function scriptedApis(projectId: string): (script: Script) => Promise<ScriptedApi> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  const prefix = `/v1/analytics/${projectId}/`;
  return async (script) => {
    const calls: ScriptedCall[] = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const call = { endpoint: url.pathname.slice(prefix.length), query: url.searchParams };
      const body = url.pathname.startsWith(prefix) ? script(call) : undefined;
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `No route for ${url.pathname}` }));
        return;
      }
      calls.push(call);
      const refused = body instanceof Refusal;
      res.writeHead(refused ? body.status : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(refused ? { error: body.error } : body));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      calls,
      count: (endpoint) => calls.filter((c) => c.endpoint === endpoint).length,
    };
  };
}
