import { isoTime, type SqlSession } from '../load/session.js';
import type { Alert } from './alert.js';

/**
 * What was sent (alerts_sent): an alert already delivered is not sent again; one whose delivery
 * failed (delivered = false) is sent again by the next run, whatever day it evaluates.
 */
export interface SentState {
  readonly delivered: ReadonlySet<string>;
  /** Alerts recorded but not delivered, as they were recorded. */
  readonly pending: readonly Alert[];
}

export async function readSent(session: SqlSession, projectIds: readonly string[]): Promise<SentState> {
  const delivered = new Set<string>();
  const pending: Alert[] = [];
  if (projectIds.length === 0) return { delivered, pending };
  const wanted = new Set(projectIds);
  const rows = await session.rows(
    `SELECT project_id, alert_id, delivered, alert FROM alerts_sent
     WHERE project_id = ANY($1::VARCHAR[]) ORDER BY sent_at, alert_id COLLATE "C"`,
    [[...wanted]],
  );
  for (const r of rows) {
    if (!wanted.has(String(r['project_id']))) continue;
    const key = `${String(r['project_id'])}|${String(r['alert_id'])}`;
    if (r['delivered'] === true) delivered.add(key);
    else pending.push(JSON.parse(String(r['alert'])) as Alert);
  }
  return { delivered, pending };
}

export function sentKey(a: Alert): string {
  return `${a.projectId}|${a.id}`;
}

export async function recordSent(
  session: SqlSession,
  alerts: readonly Alert[],
  delivered: boolean,
  sentAt: Date,
): Promise<void> {
  if (alerts.length === 0) return;
  await session.transaction(async () => {
    for (const a of alerts) {
      await session.run(
        `INSERT INTO alerts_sent (project_id, alert_id, rule, day, sent_at, delivered, alert)
         VALUES ($1::VARCHAR, $2::VARCHAR, $3::VARCHAR, $4::DATE, $5::TIMESTAMPTZ, $6::BOOLEAN, $7::VARCHAR)
         ON CONFLICT (project_id, alert_id) DO UPDATE SET rule = excluded.rule, day = excluded.day,
           sent_at = excluded.sent_at, delivered = excluded.delivered, alert = excluded.alert`,
        [a.projectId, a.id, a.rule, a.day, isoTime(sentAt), delivered, JSON.stringify(a)],
      );
    }
  });
}
