import type { SqlSession } from '../load/session.js';
import { daysBetween } from '../util/day.js';
import { splitBackfill, type Backfill } from './alert-backfill.js';
import type { AlertRules } from './alert-rules.js';
import { makeAlert, type Alert } from './alert.js';

export const KEY_EXPIRY_HINT =
  "Mintlify's API keys expire after 7, 30, 60 or 90 days, or never, as chosen when the key was created (or it was revoked): create a new admin key in the dashboard (API keys) and put it in MINTLIFY_API_KEY or --api-key-file";

/**
 * The health of the nightly job for the operator: the last run refused (401), streams whose
 * windows still fail or wait days later, the data falling behind, the budget running out night
 * after night. `day` is the day evaluated (the dedup key); `today` is the clock's day.
 */
export async function pipelineAlerts(
  session: SqlSession,
  projectId: string,
  day: string,
  today: string,
  rules: AlertRules['pipeline'],
): Promise<Alert[]> {
  const alert = (subject: string, message: string, fields: Alert['fields'], once?: string): Alert =>
    makeAlert({ projectId, day, rule: 'pipeline', subject, message, fields }, once);
  const out: Alert[] = [];
  const nights = await lastNights(session, projectId, rules.budgetNights);
  const last = nights[0];
  const { backfill, deferred } = await splitBackfill(
    session,
    projectId,
    day,
    deferredStreams(last?.deferredDays ?? [], projectId, day),
  );
  if (last !== undefined && /\(401\)/.test(last.error ?? '')) {
    out.push(
      alert('auth', `the last sync (${last.runId}, ${last.night}) was refused with 401. ${KEY_EXPIRY_HINT}`, {
        runId: last.runId,
        status: 401,
      }),
    );
  }
  // A backfill the budget spreads over several nights is the plan, not a budget running out: the
  // budget alert is for work that cannot keep up (days deferred inside the loaded history).
  const onlyBackfill = backfill !== null && deferred.size === 0;
  if (
    !onlyBackfill &&
    nights.length >= rules.budgetNights &&
    nights.every((n) => n.status === 'incomplete' && n.deferred > 0)
  ) {
    out.push(
      alert(
        'budget',
        `the request budget ran out before the work was done ${nights.length} nights running (${nights.map((n) => `${n.night}: ${n.deferred} windows deferred`).join(', ')}): widen the schedule, narrow the streams, or raise --max-requests`,
        { nights: nights.length, deferredLastNight: nights[0]?.deferred ?? 0 },
      ),
    );
  }
  for (const f of await failingStreams(session, projectId, day)) {
    out.push(
      alert(
        `failing ${f.stream}`,
        `stream ${f.stream}: ${f.windows} window(s) still failed more than a day later, the oldest from ${f.oldest}${f.error === null ? '' : ` (${f.error})`}`,
        { stream: f.stream, windows: f.windows, oldest: f.oldest },
      ),
    );
  }
  if (backfill !== null)
    out.push(alert('backfill', backfillMessage(backfill), { ...backfill.fields }, backfill.from));
  for (const [stream, days] of deferred) {
    out.push(
      alert(
        `deferred ${stream}`,
        `stream ${stream}: ${days.length} day(s) deferred more than a day, the oldest ${days[0] ?? ''}`,
        { stream, days: days.length, oldest: days[0] ?? null },
      ),
    );
  }
  const behind = await behindAlert(session, projectId, today, rules.maxDaysBehind);
  if (behind !== null) out.push(alert('behind', behind.message, behind.fields));
  return out;
}

function backfillMessage(b: Backfill): string {
  const f = b.fields;
  return `backfill in progress, as planned: ${f.loaded} of the ${f.days} days from ${f.from} to ${f.to} loaded, ${f.left} left for the next runs (${b.streams.join(', ')}); nothing to do (mintlify-etl status shows the progress; this alert is sent once per backfill)`;
}

interface Night {
  night: string;
  runId: string;
  status: string;
  deferred: number;
  error: string | null;
  deferredDays: string[];
}

/** The last finished run of each of the last `n` nights the project was synced. */
async function lastNights(session: SqlSession, projectId: string, n: number): Promise<Night[]> {
  const rows = await session.rows(
    `SELECT night, run_id, status, deferred, error, deferred_days FROM (
       SELECT (started_at AT TIME ZONE 'UTC')::DATE AS night, run_id, status,
         windows_deferred::INTEGER AS deferred, error, deferred_days,
         row_number() OVER (
           PARTITION BY (started_at AT TIME ZONE 'UTC')::DATE ORDER BY started_at DESC, run_id COLLATE "C" DESC
         ) AS pick
       FROM sync_runs
       WHERE $1::VARCHAR = ANY(project_ids) AND status <> 'running') AS runs
     WHERE pick = 1 ORDER BY night DESC LIMIT $2::INTEGER`,
    [projectId, Math.max(n, 1)],
  );
  return rows.map((r) => ({
    night: String(r['night']),
    runId: String(r['run_id']),
    status: String(r['status']),
    deferred: Number(r['deferred']),
    error: (r['error'] as string | null) ?? null,
    deferredDays: (r['deferred_days'] as string[] | null) ?? [],
  }));
}

async function failingStreams(
  session: SqlSession,
  projectId: string,
  day: string,
): Promise<{ stream: string; windows: number; oldest: string; error: string | null }[]> {
  // The error of each stream's latest failed window (arg_max, which PostgreSQL lacks).
  const rows = await session.rows(
    `SELECT stream, count(*)::INTEGER AS windows, min(window_start) AS oldest,
       max(CASE WHEN latest = 1 THEN error END) AS error
     FROM (
       SELECT stream, window_start, error,
         row_number() OVER (PARTITION BY stream ORDER BY fetched_at DESC NULLS LAST, window_start DESC) AS latest
       FROM sync_windows
       WHERE project_id = $1::VARCHAR AND status = 'failed' AND window_end <= $2::DATE) AS failed
     GROUP BY stream ORDER BY stream COLLATE "C"`,
    [projectId, day],
  );
  return rows.map((r) => ({
    stream: String(r['stream']),
    windows: Number(r['windows']),
    oldest: String(r['oldest']),
    error: (r['error'] as string | null) ?? null,
  }));
}

/** deferred_days holds `project:day` (visitors) and `project:stream:day`; those before `day`. */
export function deferredStreams(
  entries: readonly string[],
  projectId: string,
  day: string,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of entries) {
    if (!e.startsWith(`${projectId}:`)) continue;
    const rest = e.slice(projectId.length + 1).split(':');
    const d = rest.at(-1) ?? '';
    const stream = rest.length > 1 ? (rest[0] ?? '') : 'visitors';
    if (d >= day) continue;
    out.set(stream, [...(out.get(stream) ?? []), d].sort());
  }
  return out;
}

async function behindAlert(
  session: SqlSession,
  projectId: string,
  today: string,
  maxDaysBehind: number,
): Promise<{ message: string; fields: Alert['fields'] } | null> {
  const rows = await session.rows(
    `SELECT max(day) AS last FROM site_daily WHERE project_id = $1::VARCHAR AND NOT partial`,
    [projectId],
  );
  const last = rows[0]?.['last'] as string | null | undefined;
  if (last === null || last === undefined) return null;
  // Yesterday is the newest day a nightly sync can have complete.
  const behind = daysBetween(last, today) - 1;
  if (behind <= maxDaysBehind) return null;
  return {
    message: `the loaded data is ${behind} days behind: the newest complete visitors day is ${last} (today is ${today}); is the nightly sync running?`,
    fields: { lastDay: last, daysBehind: behind },
  };
}
