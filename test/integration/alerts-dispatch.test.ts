import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeAlert, type Alert, type Evaluation } from '../../src/insights/alert.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { dispatchAlerts, type DispatchOptions } from '../../src/notify/dispatch.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let cleanup: () => void;
let db: Database;
const NOW = new Date('2026-03-03T06:00:00Z');

function alert(projectId: string, subject: string, day = '2026-03-02'): Alert {
  return makeAlert({
    projectId,
    day,
    rule: 'search',
    subject,
    message: `new term ${subject}`,
    fields: { term: subject },
  });
}

function evaluation(projectId: string, alerts: Alert[]): Evaluation[] {
  return [{ projectId, day: alerts[0]?.day ?? null, alerts, notes: [] }];
}

const opts = (o: Partial<DispatchOptions> = {}): DispatchOptions => ({ resend: false, now: () => NOW, ...o });

beforeAll(async () => {
  const t = tempDir('mlx-dispatch-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'd.duckdb'));
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('alerts_sent: never the same alert twice', () => {
  it('sends an alert once: the same alerts again send nothing new; --resend sends them again', async () => {
    const fired = evaluation('d1', [alert('d1', 'oauth'), alert('d1', 'sso')]);
    const first = await dispatchAlerts(duckSession(db.connection), fired, opts());
    expect(first.sent.map((a) => a.subject)).toEqual(['oauth', 'sso']);
    const again = await dispatchAlerts(duckSession(db.connection), fired, opts());
    expect(again.sent).toEqual([]);
    expect(again.alreadySent.map((a) => a.subject)).toEqual(['oauth', 'sso']);
    const resent = await dispatchAlerts(duckSession(db.connection), fired, opts({ resend: true }));
    expect(resent.sent.map((a) => a.subject)).toEqual(['oauth', 'sso']);
    const rows = await queryRows(
      db.connection,
      "SELECT rule, strftime(day, '%Y-%m-%d') AS day, delivered FROM alerts_sent WHERE project_id = 'd1'",
    );
    expect(rows).toEqual([
      { rule: 'search', day: '2026-03-02', delivered: true },
      { rule: 'search', day: '2026-03-02', delivered: true },
    ]);
  });

  it('sends a new alert of a project next to the ones already sent', async () => {
    const out = await dispatchAlerts(
      duckSession(db.connection),
      evaluation('d1', [alert('d1', 'oauth'), alert('d1', 'scim')]),
      opts(),
    );
    expect(out.sent.map((a) => a.subject)).toEqual(['scim']);
  });
});

describe('delivery to a webhook', () => {
  let r: WebhookReceiver | undefined;
  afterEach(() => r?.close());

  it('retries a 503 and delivers the alert exactly once', async () => {
    r = await startWebhookReceiver([503, 200]);
    const out = await dispatchAlerts(duckSession(db.connection), evaluation('w1', [alert('w1', 'oauth')]), {
      ...opts(),
      webhookUrl: r.url,
      webhook: { retryDelayMs: 1 },
    });
    expect(out.delivered).toBe(true);
    expect(r.bodies).toHaveLength(2);
    expect(r.accepted).toHaveLength(1);
    const again = await dispatchAlerts(duckSession(db.connection), evaluation('w1', [alert('w1', 'oauth')]), {
      ...opts(),
      webhookUrl: r.url,
    });
    expect(again.sent).toEqual([]);
    expect(r.bodies).toHaveLength(2);
  });

  it('keeps an alert the webhook refused unsent, and sends it on the next run even when that run evaluates another day', async () => {
    r = await startWebhookReceiver([400, 200]);
    const failed = await dispatchAlerts(
      duckSession(db.connection),
      evaluation('w2', [alert('w2', 'oauth')]),
      {
        ...opts(),
        webhookUrl: r.url,
      },
    );
    expect(failed.delivered).toBe(false);
    expect(failed.deliveryError?.message).toBe('the webhook answered 400');
    expect(r.bodies).toHaveLength(1);
    const rows = await queryRows(db.connection, "SELECT delivered FROM alerts_sent WHERE project_id = 'w2'");
    expect(rows).toEqual([{ delivered: false }]);
    const next = await dispatchAlerts(
      duckSession(db.connection),
      evaluation('w2', [alert('w2', 'sso', '2026-03-03')]),
      {
        ...opts(),
        webhookUrl: r.url,
      },
    );
    expect(next.delivered).toBe(true);
    expect(next.sent.map((a) => `${a.day} ${a.subject}`)).toEqual(['2026-03-02 oauth', '2026-03-03 sso']);
    expect(r.accepted).toHaveLength(1);
  });

  it('posts a payload Slack and Teams display: a text summary, Slack fields and Teams facts', async () => {
    r = await startWebhookReceiver([200]);
    await dispatchAlerts(duckSession(db.connection), evaluation('w3', [alert('w3', 'oauth')]), {
      ...opts(),
      webhookUrl: r.url,
    });
    const body = r.accepted[0] as Record<string, unknown>;
    expect(body['text']).toBe('*mintlify-etl: 1 alert*\n• [w3 · search] new term oauth');
    expect(body['attachments']).toEqual([
      expect.objectContaining({
        title: 'search · w3 · 2026-03-02',
        fields: [
          { title: 'alert', value: alert('w3', 'oauth').id, short: true },
          { title: 'term', value: 'oauth', short: true },
        ],
      }),
    ]);
    expect(body['@type']).toBe('MessageCard');
    const sections = body['sections'] as { facts: unknown[] }[];
    expect(sections).toHaveLength(1);
    expect(sections[0]?.facts).toContainEqual({ name: 'term', value: 'oauth' });
  });
});

describe('text from readers in a chat message', () => {
  it('cannot ping a channel or disguise a link: <, > and & are escaped in the text, the fields and the facts', async () => {
    const r = await startWebhookReceiver([200]);
    try {
      await dispatchAlerts(
        duckSession(db.connection),
        evaluation('w4', [alert('w4', '<!channel> & <https://evil.example|docs>')]),
        {
          ...opts(),
          webhookUrl: r.url,
        },
      );
      const body = JSON.stringify(r.accepted[0]);
      const alerts = (r.accepted[0] as { alerts: { subject: string }[] }).alerts;
      expect(body.replace(JSON.stringify(alerts), '')).not.toMatch(/[<>]/);
      expect(body).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|docs&gt;');
      expect(alerts[0]?.subject).toBe('<!channel> & <https://evil.example|docs>');
    } finally {
      await r.close();
    }
  });
});
