import type { Command } from 'commander';
import { SCORE_RULE } from '../insights/gaps.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';

export interface GapsFlags {
  db?: string;
  schema?: string;
  project?: string;
  days: number;
  to?: string;
  limit: number;
  json?: boolean;
}

export function registerGaps(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('gaps')
    .summary(
      'rank content gaps: unanswered questions, searches without clicks, flagged pages, pages losing readers',
    )
    .description(
      `Ranks, from the database alone (opened read-only, no API call), what the docs fail to answer,
per project, over the --days days ending at the project's last complete loaded day (or
before --to), against the same number of days before:

  unanswered  questions the assistant left unanswered or answered with a clarifying
              question, the same question in other case, punctuation or spacing once
  search      terms searched 10+ times with a click-through rate of 5% or less
  flagged     pages with 3+ thumbs-down or comments not dismissed by triage
  losing      pages whose human views fell 25%+, beyond their usual weekly change

Each gap keeps its id from run to run (a hash of project, kind and subject), so
\`mintlify-etl agent fix GAP_ID\` can act on it. The same data is the view
v_content_gaps (28 days) and the macro content_gaps(days, to_day).

${SCORE_RULE}.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option(
      '--days <n>',
      'days in the window (and in the one it is compared with)',
      intFlag('--days', 1, 366),
      28,
    )
    .option(
      '--to <day>',
      'the window ends before this UTC day (exclusive, like sync); default: after the last complete loaded day',
    )
    .option('--limit <n>', 'the top N gaps of each project', intFlag('--limit', 1, 10_000), 20)
    .option('--json', 'print the gaps as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl gaps
  $ mintlify-etl gaps --days 7 --limit 5
  $ mintlify-etl gaps --to 2026-01-01 --json | jq '.gaps[0]'
  $ mintlify-etl agent fix GAP_ID --dry-run`,
    )
    .action((flags: GapsFlags) => run(async () => (await import('./gaps-action.js')).gapsCommand(flags)));
}
