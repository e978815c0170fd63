import type { Command } from 'commander';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';

export interface AlertsFlags {
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
    .action((flags: AlertsFlags) =>
      run(async () => (await import('./alerts-action.js')).alertsCommand(flags)),
    );
}
