import type { SqlSession } from '../load/session.js';
import { addDays } from '../util/day.js';
import { assistantAlerts } from './alert-assistant.js';
import { feedbackAlerts, searchAlerts } from './alert-activity.js';
import { pipelineAlerts } from './alert-pipeline.js';
import type { AlertRules } from './alert-rules.js';
import { trafficAlerts } from './alert-traffic.js';
import type { Alert, Evaluation } from './alert.js';

export interface EvaluateOptions {
  readonly rules: AlertRules;
  /** The clock's UTC day (for "behind"). */
  readonly today: string;
  /** The day to evaluate; default: each project's newest complete visitors day. */
  readonly day?: string;
  readonly projectId?: string;
}

/** Every project the database knows: synced windows or runs. */
export async function alertProjects(session: SqlSession): Promise<string[]> {
  const rows = await session.rows(
    `SELECT project_id FROM (
       SELECT project_id FROM sync_windows
       UNION SELECT unnest(project_ids) AS project_id FROM sync_runs) AS known
     ORDER BY project_id COLLATE "C"`,
  );
  return rows.map((r) => String(r['project_id']));
}

async function newestCompleteDay(session: SqlSession, projectId: string): Promise<string | null> {
  const rows = await session.rows(
    `SELECT max(day) AS day FROM site_daily WHERE project_id = $1::VARCHAR AND NOT partial`,
    [projectId],
  );
  return (rows[0]?.['day'] as string | null | undefined) ?? null;
}

export async function evaluateAlerts(session: SqlSession, o: EvaluateOptions): Promise<Evaluation[]> {
  const projects = o.projectId === undefined ? await alertProjects(session) : [o.projectId];
  const out: Evaluation[] = [];
  for (const projectId of projects) out.push(await evaluateProject(session, projectId, o));
  return out;
}

async function evaluateProject(
  session: SqlSession,
  projectId: string,
  o: EvaluateOptions,
): Promise<Evaluation> {
  const notes: string[] = [];
  const alerts: Alert[] = [];
  const day = o.day ?? (await newestCompleteDay(session, projectId));
  const r = o.rules;
  if (day === null) {
    notes.push('no complete loaded day yet: only the pipeline rules ran');
  } else {
    if (r.traffic.enabled) alerts.push(...(await trafficAlerts(session, projectId, day, r.traffic, notes)));
    if (r.search.enabled) alerts.push(...(await searchAlerts(session, projectId, day, r.search, notes)));
    if (r.feedback.enabled)
      alerts.push(...(await feedbackAlerts(session, projectId, day, r.feedback, notes)));
    if (r.assistant.enabled)
      alerts.push(...(await assistantAlerts(session, projectId, day, r.assistant, notes)));
  }
  if (r.pipeline.enabled) {
    // With nothing loaded the runs still tell: a first sync refused with 401 is the most likely.
    const at = day ?? addDays(o.today, -1);
    alerts.push(...(await pipelineAlerts(session, projectId, at, o.today, r.pipeline)));
  }
  return { projectId, day, alerts, notes };
}
