import { EXIT, UsageError } from '../errors.js';
import { defaultRules, loadRules } from '../insights/alert-rules.js';
import type { Alert, Evaluation } from '../insights/alert.js';
import { alertProjects, evaluateAlerts } from '../insights/alerts.js';
import { dispatchAlerts, type Dispatch, type DispatchOutcome } from '../notify/dispatch.js';
import { checkWebhookUrl, registerWebhookSecret } from '../notify/webhook.js';
import { parseDay, todayUtc } from '../util/day.js';
import { safeLine } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import type { CommandResult } from './result.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import type { AlertsFlags } from './alerts.js';
import { WEBHOOK_ENV } from './alerts.js';

/*
 * What `mintlify-etl alerts` does. Its flags and help are alerts.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

function webhookUrl(flags: AlertsFlags): string | undefined {
  const fromEnv = process.env[WEBHOOK_ENV]?.trim();
  const url = flags.webhook ?? (fromEnv === '' ? undefined : fromEnv);
  if (url === undefined) return undefined;
  // A secret before anything can print it, the messages about it included.
  registerWebhookSecret(url);
  checkWebhookUrl(url, flags.webhook !== undefined ? '--webhook' : WEBHOOK_ENV);
  return url;
}

export async function alertsCommand(flags: AlertsFlags): Promise<CommandResult> {
  const url = webhookUrl(flags);
  const day = flags.day === undefined ? undefined : parseDay(flags.day, '--day');
  const rules = flags.rules === undefined ? defaultRules() : loadRules(flags.rules);
  const now = clockFromEnv() ?? Date.now;
  const target = dbTargetOf(flags);
  const place = placeOf(target);
  await place.requireExisting();
  // Read-write: alerts_sent is written. A cron line runs it after sync, when the file is free.
  const db = await place.open('write');
  const session = db.session;
  const path = db.label;
  let evaluations: Evaluation[];
  let dispatch: Dispatch;
  try {
    if (flags.project !== undefined && !(await alertProjects(session)).includes(flags.project)) {
      throw new UsageError(`project ${flags.project} has no data in ${path}: see \`mintlify-etl status\``, {
        project: flags.project,
      });
    }
    evaluations = await evaluateAlerts(session, {
      rules,
      today: todayUtc(now()),
      ...(day !== undefined ? { day } : {}),
      ...(flags.project !== undefined ? { projectId: flags.project } : {}),
    });
    dispatch = await dispatchAlerts(session, evaluations, {
      resend: flags.resend ?? false,
      ...(url !== undefined ? { webhookUrl: url } : {}),
      now: () => new Date(now()),
    });
  } finally {
    await db.close();
  }
  writeNotes(evaluations, dispatch);
  const exitCode = EXIT_OF[dispatch.outcome];
  if (flags.json) return { exitCode, json: alertsJson(evaluations, dispatch) };
  process.stdout.write(formatAlerts(dispatch.sent));
  return { exitCode };
}

/** A failed delivery is not "sent": cron and CI must tell the two apart. */
const EXIT_OF: Readonly<Record<DispatchOutcome, number>> = {
  sent: EXIT.alertsFired,
  'nothing-new': EXIT.ok,
  'delivery-failed': EXIT.deliveryFailed,
};

/** One line per alert: project, day, rule, id, then the message. */
export function formatAlerts(alerts: readonly Alert[]): string {
  return alerts.map((a) => `${a.projectId} ${a.day} ${a.rule} ${a.id} ${safeLine(a.message)}\n`).join('');
}

function writeNotes(evaluations: readonly Evaluation[], d: Dispatch): void {
  const err = (line: string): boolean => process.stderr.write(`mintlify-etl: ${safeLine(line)}\n`);
  for (const e of evaluations) for (const n of e.notes) err(`note: ${e.projectId}: ${n}`);
  if (d.alreadySent.length > 0) {
    err(
      `${d.alreadySent.length} alert(s) already sent by an earlier run, not sent again (--resend sends them)`,
    );
  }
  if (d.interrupted.length > 0) {
    err(
      `${d.interrupted.length} alert(s) were being sent when an earlier run stopped and may have arrived: not sent again (--resend sends them)`,
    );
  }
  if (d.deliveryError !== null) {
    err(
      `webhook delivery failed: ${d.deliveryError.message}; the ${d.sent.length} alert(s) were not delivered and go again on the next run`,
    );
  }
}

function alertsJson(evaluations: readonly Evaluation[], d: Dispatch): unknown {
  return {
    projects: evaluations.map((e) => ({ projectId: e.projectId, day: e.day, notes: e.notes })),
    alerts: d.sent,
    alreadySent: d.alreadySent.map((a) => a.id),
    interrupted: d.interrupted.map((a) => a.id),
    outcome: d.outcome,
    delivered: d.delivered,
    deliveryError: d.deliveryError?.message ?? null,
  };
}
