import type { Command } from 'commander';
import { BUDGET_SCOPE_FLAG, BUDGET_SCOPE_HELP } from './db-flags.js';
import { addDbOptions } from './db-flags.js';
import type { CommandResult } from './result.js';

/** The service's own limit, which status judges by unless told the limit the runs used. */
export const SERVICE_RATE_LIMIT = '100/1h';

export interface StatusFlags {
  db?: string;
  schema?: string;
  budgetScope?: string;
  json?: boolean;
  rateLimit?: string;
  project?: string;
}

export function registerStatus(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  const cmd = program
    .command('status')
    .summary('show coverage and gaps per stream, recent runs and the request budget left')
    .description(
      `Shows, from the database alone (no API call, opened read-only): the request budget spent in the current window and when the next slot frees up, and per project and stream (visitors first): the days covered, the days missing inside that range, partial days, days cut short by --max-pages (truncated), failed days, days deferred by a budget- or time-bounded run; then the project's last 5 runs with their outcome.

--json prints the same as one object, for monitoring: .projects[].streams[] holds each stream's {stream, coverage, partialDays, truncatedDays, failedDays, deferredDays}; .projects[].coverage, .partialDays, .failedDays and .deferredDays are the visitors stream's, as before streams (e.g. alert when .projects[].coverage.daysMissing > 0 or the last run failed).`,
    );
  addDbOptions(cmd);
  cmd
    .option(
      BUDGET_SCOPE_FLAG,
      `${BUDGET_SCOPE_HELP}; without a key or a name, every request in the ledger counts`,
    )
    .option(
      '--rate-limit <N/DURATION>',
      `the budget to judge the request ledger against (as given to sync; default ${SERVICE_RATE_LIMIT})`,
    )
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option('--json', 'print one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl status
  $ mintlify-etl status --json | jq '.projects[] | {projectId, missing: .coverage.daysMissing}'
  $ mintlify-etl status --json | jq '.projects[].streams[] | {stream, missing: .coverage.daysMissing, truncated: (.truncatedDays | length)}'`,
    )
    .action((flags: StatusFlags) =>
      run(async () => (await import('./status-action.js')).statusCommand(flags)),
    );
}
