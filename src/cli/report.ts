import type { Command } from 'commander';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';

export interface ReportFlags {
  db?: string;
  schema?: string;
  days: number;
  project?: string;
  html?: string;
  json?: boolean;
  includePersonalData?: boolean;
  force?: boolean;
}

export function registerReport(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('report')
    .summary('show visitor trends: site totals, weekly, top pages, biggest movers (terminal or HTML)')
    .description(
      `Shows, from the database alone (opened read-only, no API call), per project
over the last --days days up to its last complete loaded day: daily unique visitors
with the human/AI split and trend sparklines, 7-day averages, week-over-week
change, the last 7 days against the 7 before, ISO weeks, the top pages of the
last 7 days, the biggest movers, and the AI share.

Sums over several days are visitor-days (a visitor seen on 3 days counts 3
times), never "visitors": daily unique visitors are not additive.

Streams synced besides visitors add their own sections, each only when that
stream is loaded: views (content views per day, 7-day average, views per
visitor, top pages by views), searches (top terms of the last 7 days with
CTR and change; terms searched 20+ times in 28 days with the lowest CTR, the
docs gaps) and caller_stats (assistant queries per day: web, API, other).
Views, searches and queries are events: they add up over days. feedback adds
the open items (pending, in progress) oldest first with their comment and age,
and the helpful share of thumbs per week; assistant adds the answered and
clarifying-question shares per day and the most asked unanswered questions.
visitors_weekly / visitors_monthly add the true unique visitors of the last
week and month (a reader counted once per period, unlike visitor-days).

Feedback contacts (email addresses) are personal data: left out of the text,
the HTML and --json unless --include-personal-data.

--html FILE also writes one self-contained page (charts as inline SVG, no
script, no network) to share or archive. It replaces an earlier page of this
tool (recognised by its generator tag) but no other file unless --force, and
never anything but a regular file (a FIFO, a device). The page is written to a
temporary file in the same folder and renamed into place. Colour on a terminal
only; NO_COLOR turns it off.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option(
      '--days <n>',
      'days of history to show, ending at the last loaded day',
      intFlag('--days', 1, 3660),
      28,
    )
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option('--html <file>', 'also write the report as one self-contained HTML page')
    .option(
      '--force',
      'let --html replace an existing file that is not a page of this tool (refused by default)',
    )
    .option('--json', 'print the report data as one JSON object on stdout instead of text')
    .option(
      '--include-personal-data',
      'show the contact (email address) of open feedback items, in the text, the HTML and --json; off by default: a shared report must not carry them',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl report
  $ mintlify-etl report --days 90 --html reports/visitors.html
  $ mintlify-etl report --json | jq '.projects[0].topPages[:3]'
  $ mintlify-etl report --json | jq '.projects[0].searches.gaps'
  $ mintlify-etl report --include-personal-data --html private/feedback.html`,
    )
    .action((flags: ReportFlags) =>
      run(async () => (await import('./report-action.js')).reportCommand(flags)),
    );
}
