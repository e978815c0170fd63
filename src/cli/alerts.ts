import type { Command } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { defaultRules, loadRules } from '../insights/alert-rules.js';
import type { Alert, Evaluation } from '../insights/alert.js';
import { alertProjects, evaluateAlerts } from '../insights/alerts.js';
import { dispatchAlerts, type Dispatch, type DispatchOutcome } from '../notify/dispatch.js';
import { checkWebhookUrl, registerWebhookSecret } from '../notify/webhook.js';
import { parseDay, todayUtc } from '../util/day.js';
import { safeLine } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import { openToRead, requireExistingDb } from './open-readonly.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp, dbTargetOf, placeOf } from './destination-flags.js';

interface AlertsFlags {
  db?: string;
  schema?: string;
  project?: string;
  day?: string;
  rules?: string;
  resend?: boolean;
  webhook?: string;
  json?: boolean;
}

export const WEBHOOK_ENV = 'MINTLIFY_ETL_WEBHOOK_URL';

export function registerAlerts(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('alerts')
    .summary('after a sync: tell what changed (traffic, searches, feedback, assistant, the pipeline itself)')
    .description(
      `Evaluates the alert rules on each project's newest complete loaded day (or --day), from the
database alone (no API call), prints one line per alert and exits 6 when at least one alert
was sent, 0 when none, 4 when the webhook did not take them. Each alert is sent at most once:
alerts_sent records it before the POST, so a re-run for the same day sends nothing new, nor
does a run after one killed mid-POST (--resend sends again). With --webhook (or
${WEBHOOK_ENV}) the alerts are POSTed as one JSON message that Slack and Microsoft Teams
display, each with a stable id; a failed delivery goes again on the next run.

  traffic    human visitors or views of the site, or visitors of a top page,
             outside median +/- 3 x 1.4826 x MAD (and 20%) of the same
             weekday of the 8 weeks before
  search     a term searched 5+ times that day without a click, not such a
             term the week before
  feedback   thumbs-down or comments on a page, 3+ that day and 3x its daily
             rate of 28 days
  assistant  the unanswered share 15 points above its median of the 28 days
             before
  pipeline   the last sync refused (401: an expired or revoked key), windows
             failed or deferred more than a day, data more than 2 days
             behind, the budget exhausted 3 nights running

Tune or turn off any rule with --rules FILE (JSON): docs/alerts-and-digest.md.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option('--day <day>', "the UTC day to evaluate (default: each project's newest complete loaded day)")
    .option('--rules <file>', 'a JSON file of rule settings over the defaults')
    .option('--resend', 'send the alerts of the day again, even those already sent')
    .option('--webhook <url>', `POST the alerts to this URL (env ${WEBHOOK_ENV}); a secret, never printed`)
    .option('--json', 'print the alerts as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl sync && mintlify-etl alerts
  $ mintlify-etl alerts --day 2026-11-23 --json | jq '.alerts[].message'
  $ ${WEBHOOK_ENV}=https://hooks.slack.com/services/... mintlify-etl alerts`,
    )
    .action((flags: AlertsFlags) => run(() => alertsCommand(flags)));
}

function webhookUrl(flags: AlertsFlags): string | undefined {
  const fromEnv = process.env[WEBHOOK_ENV]?.trim();
  const url = flags.webhook ?? (fromEnv === '' ? undefined : fromEnv);
  if (url === undefined) return undefined;
  // A secret before anything can print it, the messages about it included.
  registerWebhookSecret(url);
  checkWebhookUrl(url, flags.webhook !== undefined ? '--webhook' : WEBHOOK_ENV);
  return url;
}

async function alertsCommand(flags: AlertsFlags): Promise<CommandResult> {
  const url = webhookUrl(flags);
  const day = flags.day === undefined ? undefined : parseDay(flags.day, '--day');
  const rules = flags.rules === undefined ? defaultRules() : loadRules(flags.rules);
  const now = clockFromEnv() ?? Date.now;
  const target = dbTargetOf(flags);
  if (target.kind === 'duckdb') requireExistingDb(target.path);
  else await (await openToRead(target)).close();
  // Read-write: alerts_sent is written. A cron line runs it after sync, when the file is free.
  const db = await (await placeOf(target)).open('write');
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
