import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { readRows } from '../helpers/db.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * The same project as alerts-cli.test.ts: on 2026-03-02 "oauth" is searched 8 times without a
 * click, one search alert. The receiver here is a real HTTP server on loopback that the test
 * drives request by request: it can hold a request unanswered while the test kills the sender.
 */
let dir: string;
let cleanup: () => void;
let rules: string;
let n = 0;

// Five runs of the CLI in a row on a busy machine: a bound on the wait, not a timing claim.
const KILL_TEST_MS = 240_000;

async function database(): Promise<string> {
  const path = join(dir, `w${++n}.duckdb`);
  const db = await openDatabase(path);
  const fx = new AlertsFixture(db.connection);
  await fx.visitors('docs', '2026-01-05', '2026-03-03', '100');
  await fx.dayWindows('docs', 'searches', '2026-02-20', '2026-03-03');
  await fx.search('docs', '2026-03-02', 'oauth', 8, 0);
  db.close();
  return path;
}

interface Received {
  readonly body: { alerts: { id: string }[] } & Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
  answer(status: number): void;
}

/** A webhook on loopback that hands each request to the test, which answers it (or never does). */
async function receiver(): Promise<{
  url: string;
  next(): Promise<Received>;
  count(): number;
  /** From now on, a request nobody waits for is answered with `status` at once. */
  answerTheRest(status: number): void;
  close(): Promise<void>;
}> {
  const queue: Received[] = [];
  const waiting: ((r: Received) => void)[] = [];
  let count = 0;
  let rest: number | undefined;
  const server: Server = createServer((req, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      count++;
      const r: Received = {
        body: JSON.parse(text) as Received['body'],
        headers: req.headers,
        answer: (status) => res.writeHead(status).end(status === 200 ? 'ok' : 'no'),
      };
      const w = waiting.shift();
      if (w) w(r);
      else if (rest !== undefined) r.answer(rest);
      else queue.push(r);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/services/T0/B0/hook-s3cr3t`,
    next: () => {
      const r = queue.shift();
      return r ? Promise.resolve(r) : new Promise((resolve) => waiting.push(resolve));
    },
    count: () => count,
    answerTheRest: (status) => {
      rest = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(() => {
  ({ dir, cleanup } = tempDir('mlx-alerts-webhook-'));
  rules = join(dir, 'rules.json');
  writeFileSync(rules, JSON.stringify({ pipeline: { maxDaysBehind: 100_000 } }));
});

afterAll(() => cleanup());

describe('alerts through a webhook, as processes', () => {
  it(
    'does not send an alert again after a run was killed right after its POST arrived, says so once; --resend does, with the same ids',
    async () => {
      const db = await database();
      const hook = await receiver();
      try {
        const env = { MINTLIFY_ETL_WEBHOOK_URL: hook.url };
        const killed = runCliProcess(['alerts', '--db', db, '--rules', rules], env);
        const first = await hook.next();
        killed.child.kill('SIGKILL');
        expect((await killed).signal).toBe('SIGKILL');
        hook.answerTheRest(200);
        const id = first.body.alerts[0]?.id;
        expect(id).toMatch(/^al_[0-9a-f]{12}$/);

        const next = await runCli(['alerts', '--db', db, '--rules', rules], env);
        expect(hook.count()).toBe(1);
        expect(next.code).toBe(0);
        expect(next.stdout).toBe('');
        expect(next.stderr).toBe(
          'mintlify-etl: 1 alert(s) were being sent when an earlier run stopped and may have arrived: not sent again (--resend sends them)\n',
        );
        expect(hook.count()).toBe(1);
        const rows = await readRows<{ state: string; delivered: boolean }>(
          db,
          'SELECT state, delivered FROM alerts_sent',
        );
        expect(rows).toEqual([{ state: 'unconfirmed', delivered: false }]);
        const third = await runCli(['alerts', '--db', db, '--rules', rules], env);
        expect({ code: third.code, stdout: third.stdout, sent: hook.count() }).toEqual({
          code: 0,
          stdout: '',
          sent: 1,
        });
        expect(third.stderr).toBe(
          'mintlify-etl: 1 alert(s) already sent by an earlier run, not sent again (--resend sends them)\n',
        );

        const resend = runCli(['alerts', '--db', db, '--rules', rules, '--resend'], env);
        const again = await hook.next();
        again.answer(200);
        expect((await resend).code).toBe(6);
        expect(again.body.alerts[0]?.id).toBe(id);
        expect(again.body['id']).toBe(first.body['id']);
        expect(again.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
      } finally {
        await hook.close();
      }
    },
    KILL_TEST_MS,
  );

  it('says a delivery failed and exits 4, not 6, when the webhook refuses the alerts', async () => {
    const db = await database();
    const hook = await receiver();
    try {
      const run = runCli(['alerts', '--db', db, '--rules', rules, '--json', '--webhook', hook.url]);
      (await hook.next()).answer(400);
      const r = await run;
      expect(r.code).toBe(4);
      expect(r.stderr).toBe(
        'mintlify-etl: webhook delivery failed: the webhook answered 400; the 1 alert(s) were not delivered and go again on the next run\n',
      );
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'delivery-failed', delivered: false });
      const rows = await readRows<{ state: string }>(db, 'SELECT state FROM alerts_sent');
      expect(rows).toEqual([{ state: 'failed' }]);
    } finally {
      await hook.close();
    }
  });

  it('retries a webhook that answers 429 like one that answers 503, and delivers in the same run', async () => {
    const db = await database();
    const hook = await receiver();
    try {
      const run = runCli(['alerts', '--db', db, '--rules', rules, '--json', '--webhook', hook.url]);
      const first = await hook.next();
      first.answer(429);
      const second = await hook.next();
      second.answer(200);
      const r = await run;
      expect(r.code).toBe(6);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'sent', delivered: true });
      expect(second.body).toEqual(first.body);
      expect(hook.count()).toBe(2);
    } finally {
      await hook.close();
    }
  });
});
