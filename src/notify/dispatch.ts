import type { Alert, Evaluation } from '../insights/alert.js';
import { readSent, recordState, sentKey, type SentState } from '../insights/alerts-sent.js';
import type { SqlSession } from '../load/session.js';
import { alertPayload, deliveryId } from './alert-payload.js';
import { postJson, type WebhookOptions } from './webhook.js';

export interface DispatchOptions {
  /** Send the alerts fired again, even those already sent (or possibly sent). */
  readonly resend: boolean;
  readonly webhookUrl?: string;
  readonly webhook?: WebhookOptions;
  readonly now: () => Date;
}

/** What the run did: sent its alerts, had nothing new to send, or could not deliver them. */
export type DispatchOutcome = 'sent' | 'nothing-new' | 'delivery-failed';

export interface Dispatch {
  /** Sent by this run (delivered, or attempted when the delivery failed): new ones, failed ones again, and (--resend) all. */
  readonly sent: Alert[];
  /** Fired again but sent by an earlier run: not sent. */
  readonly alreadySent: Alert[];
  /** In flight when an earlier run stopped (they may have arrived): not sent again. */
  readonly interrupted: Alert[];
  /** null without a webhook. */
  readonly delivered: boolean | null;
  /** Why the webhook failed, when it did. */
  readonly deliveryError: Error | null;
  readonly outcome: DispatchOutcome;
}

/**
 * Sends what has not been sent, at most once: with a webhook, each alert is recorded as
 * `sending` and committed BEFORE the POST, then as delivered or failed. A run killed between
 * the two leaves `sending`, and the next run does not send it again (it may have arrived) but
 * says so. A delivery that visibly failed is sent again by the next run, even once its day is
 * past. Without a webhook, printing is the delivery.
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
  const plan = planSends(state, fired, o.resend);
  // Said once: from now on they count as sent (unconfirmed), unless this run sends them anyway.
  await recordState(session, plan.interrupted, 'unconfirmed', o.now());
  let delivered: boolean | null = null;
  let deliveryError: Error | null = null;
  if (o.webhookUrl !== undefined && plan.sent.length > 0) {
    await recordState(session, plan.sent, 'sending', o.now());
    try {
      const payload = alertPayload(plan.sent);
      await postJson(o.webhookUrl, payload, { ...o.webhook, idempotencyKey: deliveryId(plan.sent) });
      delivered = true;
    } catch (e) {
      delivered = false;
      deliveryError = e instanceof Error ? e : new Error(String(e));
    }
  }
  await recordState(session, plan.sent, delivered === false ? 'failed' : 'delivered', o.now());
  const outcome: DispatchOutcome =
    plan.sent.length === 0 ? 'nothing-new' : delivered === false ? 'delivery-failed' : 'sent';
  return { ...plan, delivered, deliveryError, outcome };
}

function planSends(
  state: SentState,
  fired: readonly Alert[],
  resend: boolean,
): Pick<Dispatch, 'sent' | 'alreadySent' | 'interrupted'> {
  const done = (a: Alert): boolean => !resend && state.sent.has(sentKey(a));
  const firedKeys = new Set(fired.map(sentKey));
  const interrupted = state.interrupted.filter((a) => !(resend && firedKeys.has(sentKey(a))));
  const held = new Set(interrupted.map(sentKey));
  const sent: Alert[] = [];
  const seen = new Set<string>();
  for (const a of [...state.failed, ...fired]) {
    const key = sentKey(a);
    if (seen.has(key) || done(a) || held.has(key)) continue;
    seen.add(key);
    sent.push(a);
  }
  return { sent, alreadySent: fired.filter(done), interrupted };
}
