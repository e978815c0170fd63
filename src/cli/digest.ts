import { Option, type Command } from 'commander';
import { WEBHOOK_ENV } from './alerts.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';

export interface DigestFlags {
  db?: string;
  schema?: string;
  project?: string;
  week?: string;
  format: 'markdown' | 'html';
  out?: string;
  force?: boolean;
  webhook?: string;
  json?: boolean;
}

export function registerDigest(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('digest')
    .summary('the week at a glance, in Markdown (Slack, GitHub) or HTML (e-mail)')
    .description(
      `The ISO week (default: each project's last complete week) at a glance, from the database
alone: visitors and views with the change, pages up and down, top searches and new ones
without a click, feedback received and still open, assistant questions and the unanswered
share, the top content gaps, and the fixes and their effect. --webhook (or ${WEBHOOK_ENV})
sends the Markdown digest as the "text" of a JSON message.

--out FILE replaces an earlier digest or report of this tool (recognised by its
generator line) but no other file unless --force, never the database, and never
anything but a regular file (a FIFO, a device, a folder). It is written to a
temporary file in the same folder and renamed into place.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option('--week <week>', 'the ISO week, e.g. 2026-W47 (default: the last complete week)')
    .addOption(
      new Option('--format <format>', 'markdown or html').choices(['markdown', 'html']).default('markdown'),
    )
    .option('--out <file>', 'write the digest to this file instead of stdout')
    .option(
      '--force',
      'let --out replace an existing file that mintlify-etl did not write (refused by default)',
    )
    .option(
      '--webhook <url>',
      `POST the Markdown digest to this URL (env ${WEBHOOK_ENV}); a secret, never printed`,
    )
    .option('--json', 'print the digest data as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl digest
  $ mintlify-etl digest --week 2026-W47 --format html --out digest.html`,
    )
    .action((flags: DigestFlags) =>
      run(async () => (await import('./digest-action.js')).digestCommand(flags)),
    );
}
