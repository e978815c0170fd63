import { isoTime, type SqlSession } from '../load/session.js';
import type { Alert } from './alert.js';

/**
 * Where an alert's delivery stands (alerts_sent.state):
 * - `sending`: recorded and committed before the POST. Still there at the next run, it was in
 *   flight when its run died: it may have arrived, so it is not sent again (at most once).
 * - `unconfirmed`: such an alert, once a later run has said so; treated as sent.
 * - `delivered`: the webhook accepted it (or it was printed, without a webhook).
 * - `failed`: the webhook refused it or could not be reached, retries included: the next run
 *   sends it again, whatever day it evaluates.
 */
export type SendState = 'sending' | 'unconfirmed' | 'delivered' | 'failed';

export interface SentState {
  /** Keys (sentKey) of the alerts sent by an earlier run: delivered or unconfirmed. */
  readonly sent: ReadonlySet<string>;
  /** Alerts whose delivery failed, as they were recorded: to send again. */
  readonly failed: readonly Alert[];
  /** Alerts an earlier run was sending when it stopped. */
  readonly interrupted: readonly Alert[];
}

export async function readSent(session: SqlSession, projectIds: readonly string[]): Promise<SentState> {
  const sent = new Set<string>();
  const failed: Alert[] = [];
  const interrupted: Alert[] = [];
  if (projectIds.length === 0) return { sent, failed, interrupted };
  const wanted = new Set(projectIds);
  const rows = await session.rows(
    `SELECT project_id, alert_id, delivered, state, alert FROM alerts_sent
     WHERE project_id = ANY($1::VARCHAR[]) ORDER BY sent_at, alert_id COLLATE "C"`,
    [[...wanted]],
  );
  for (const r of rows) {
    if (!wanted.has(String(r['project_id']))) continue;
    const state = stateOf(r['state'], r['delivered']);
    if (state === 'delivered' || state === 'unconfirmed')
      sent.add(`${String(r['project_id'])}|${String(r['alert_id'])}`);
    else (state === 'failed' ? failed : interrupted).push(JSON.parse(String(r['alert'])) as Alert);
  }
  return { sent, failed, interrupted };
}

/** Rows written before schema 9 have no state: their `delivered` says it. */
function stateOf(state: unknown, delivered: unknown): SendState {
  if (state === 'sending' || state === 'unconfirmed' || state === 'delivered' || state === 'failed')
    return state;
  return delivered === true ? 'delivered' : 'failed';
}

export function sentKey(a: Alert): string {
  return `${a.projectId}|${a.id}`;
}

/** Records `alerts` in `state`, in one transaction (committed when this returns). */
export async function recordState(
  session: SqlSession,
  alerts: readonly Alert[],
  state: SendState,
  at: Date,
): Promise<void> {
  if (alerts.length === 0) return;
  await session.transaction(async () => {
    for (const a of alerts) {
      await session.run(
        `INSERT INTO alerts_sent (project_id, alert_id, rule, day, sent_at, delivered, state, alert)
         VALUES ($1::VARCHAR, $2::VARCHAR, $3::VARCHAR, $4::DATE, $5::TIMESTAMPTZ, $6::BOOLEAN, $7::VARCHAR, $8::VARCHAR)
         ON CONFLICT (project_id, alert_id) DO UPDATE SET rule = excluded.rule, day = excluded.day,
           sent_at = excluded.sent_at, delivered = excluded.delivered, state = excluded.state,
           alert = excluded.alert`,
        [a.projectId, a.id, a.rule, a.day, isoTime(at), state === 'delivered', state, JSON.stringify(a)],
      );
    }
  });
}
