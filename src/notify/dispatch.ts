import type { Alert, Evaluation } from '../insights/alert.js';
import { readSent, recordSent, sentKey } from '../insights/alerts-sent.js';
import type { SqlSession } from '../load/session.js';
import { alertPayload } from './alert-payload.js';
import { postJson, type WebhookOptions } from './webhook.js';

export interface DispatchOptions {
  /** Send the alerts already delivered again. */
  readonly resend: boolean;
  readonly webhookUrl?: string;
  readonly webhook?: WebhookOptions;
  readonly now: () => Date;
}

export interface Dispatch {
  /** Sent by this run: new ones, those a failed delivery left unsent, and (--resend) all. */
  readonly sent: Alert[];
  /** Fired again but already delivered by an earlier run: not sent. */
  readonly alreadySent: Alert[];
  /** null without a webhook. */
  readonly delivered: boolean | null;
  /** Why the webhook failed, when it did. */
  readonly deliveryError: Error | null;
}

/**
 * Sends what has not been sent and records it in alerts_sent. A failed delivery is recorded
 * too, as not delivered: the next run sends it again, even once its day is past. Without a
 * webhook, printing is the delivery.
 */
export async function dispatchAlerts(
  session: SqlSession,
  evaluations: readonly Evaluation[],
  o: DispatchOptions,
): Promise<Dispatch> {
  const state = await readSent(
    session,
    evaluations.map((e) => e.projectId),
  );
  const fired = evaluations.flatMap((e) => e.alerts);
  const alreadySent = o.resend ? [] : fired.filter((a) => state.delivered.has(sentKey(a)));
  const sent: Alert[] = [];
  const seen = new Set<string>();
  for (const a of [...state.pending, ...fired]) {
    if (seen.has(sentKey(a)) || (!o.resend && state.delivered.has(sentKey(a)))) continue;
    seen.add(sentKey(a));
    sent.push(a);
  }
  let delivered: boolean | null = null;
  let deliveryError: Error | null = null;
  if (o.webhookUrl !== undefined && sent.length > 0) {
    try {
      await postJson(o.webhookUrl, alertPayload(sent), o.webhook);
      delivered = true;
    } catch (e) {
      delivered = false;
      deliveryError = e instanceof Error ? e : new Error(String(e));
    }
  }
  await recordSent(session, sent, delivered !== false, o.now());
  return { sent, alreadySent, delivered, deliveryError };
}
