import { formatStatus } from '../pipeline/status-format.js';
import { gatherStatus, statusSourceOf, type StatusReport } from '../pipeline/status.js';
import { resolveBudgetScope } from '../api/budget-scope.js';
import { parseRateLimit } from '../util/duration.js';
import { safeText } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import { openToRead } from './open-readonly.js';
import { dbTargetOf } from './destination-flags.js';
import type { CommandResult } from './result.js';
import { projectIds } from './options.js';
import { UsageError } from '../errors.js';
import type { StatusFlags } from './status.js';
import { SERVICE_RATE_LIMIT } from './status.js';

/*
 * What `mintlify-etl status` does. Its flags and help are status.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function statusCommand(flags: StatusFlags): Promise<CommandResult> {
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
