import type { Command } from 'commander';
import { formatStatus } from '../pipeline/status-format.js';
import { gatherStatus, statusSourceOf, type StatusReport } from '../pipeline/status.js';
import { resolveBudgetScope } from '../api/budget-scope.js';
import { BUDGET_SCOPE_FLAG, BUDGET_SCOPE_HELP } from './destination-flags.js';
import { parseRateLimit } from '../util/duration.js';
import { safeText } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import { openToRead } from './open-readonly.js';
import { addDbOptions, dbTargetOf } from './destination-flags.js';
import type { CommandResult } from './result.js';
import { projectIds } from './options.js';
import { UsageError } from '../errors.js';

/** The service's own limit, which status judges by unless told the limit the runs used. */
const SERVICE_RATE_LIMIT = '100/1h';

interface StatusFlags {
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
    .action((flags: StatusFlags) => run(() => statusCommand(flags)));
}

async function statusCommand(flags: StatusFlags): Promise<CommandResult> {
  const rateLimit = parseRateLimit(flags.rateLimit ?? SERVICE_RATE_LIMIT);
  const limitSource = flags.rateLimit === undefined ? 'default' : 'flag';
  const db = await openToRead(dbTargetOf(flags));
  let report: StatusReport;
  try {
    const now = clockFromEnv();
    // The key is not needed to read, but when it is set its scope is the one sync counts in.
    const key = process.env['MINTLIFY_API_KEY']?.trim();
    const budgetScope = resolveBudgetScope({
      name: flags.budgetScope,
      ...(key !== undefined && key !== '' ? { apiKey: key } : {}),
    });
    report = await gatherStatus(statusSourceOf(db), {
      budgetScope,
      rateLimit,
      limitSource,
      ...(now ? { now: now() } : {}),
    });
  } finally {
    await db.close();
  }
  if (flags.project !== undefined)
    report = onlyProject(report, projectIds([flags.project])[0] ?? '', db.label);
  if (flags.json) return { exitCode: 0, json: report };
  const maxWidth = process.stdout.isTTY ? process.stdout.columns : 120;
  process.stdout.write(safeText(formatStatus(report, { maxWidth })));
  return { exitCode: 0 };
}

/** `--project`: that project alone; one the database does not hold is a usage error naming those it does. */
function onlyProject(report: StatusReport, projectId: string, label: string): StatusReport {
  const projects = report.projects.filter((p) => p.projectId === projectId);
  if (projects.length === 0)
    throw new UsageError(
      `no data for project "${projectId}" in ${label}; it holds: ${report.projects.map((p) => p.projectId).join(', ') || 'none'}`,
    );
  return { ...report, projects };
}
