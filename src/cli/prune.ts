import type { Command } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { pruneAfter, type PruneCount } from '../pipeline/prune.js';
import { parseStreams, STREAMS } from '../streams/index.js';
import { parseDay } from '../util/day.js';
import { safeText } from '../util/safe-text.js';
import { addDbOptions, dbTargetOf, placeOf } from './destination-flags.js';
import { collect, projectIds, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import type { CommandResult } from './result.js';

interface PruneFlags {
  after?: string;
  project?: string[];
  streams?: string;
  db?: string;
  schema?: string;
  yes?: boolean;
  json?: boolean;
}

export function registerPrune(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  const cmd = program
    .command('prune')
    .summary(
      'remove the days after a given day (stored under a clock that was ahead); a dry run unless --yes',
    )
    .description(
      "Removes every row dated after --after of the projects and streams, with their window ledger rows (sync_windows) and the request ledger's rows timed after it, in one transaction. For days a run stored while this machine's clock was ahead (the service has no such days): reports, status and plans stop seeing them. Without --yes it only counts what would go.",
    )
    .option('--after <YYYY-MM-DD>', 'the last day kept (UTC): every day after it is removed')
    .option(PROJECTS_FLAG, PROJECTS_HELP, collect)
    .option(
      '--streams <list>',
      `streams whose rows go, comma-separated (default: all: ${STREAMS.map((s) => s.name).join(',')})`,
    );
  addDbOptions(cmd, 'where to remove from');
  cmd
    .option('--yes', 'remove them (without it, a dry run that counts what would go)')
    .option('--json', 'print the counts as JSON on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl prune --after 2026-11-26            # what would go (nothing is removed)
  $ mintlify-etl prune --after 2026-11-26 --yes      # remove it`,
    )
    .action((flags: PruneFlags) => run(() => pruneCommand(flags)));
}

async function pruneCommand(flags: PruneFlags): Promise<CommandResult> {
  if (flags.after === undefined)
    throw new UsageError('prune needs --after YYYY-MM-DD, the last day to keep: e.g. --after 2026-11-26');
  const after = parseDay(flags.after, '--after');
  const projects = projectIds(flags.project);
  const streams = flags.streams === undefined ? STREAMS : parseStreams(flags.streams);
  const place = await placeOf(dbTargetOf(flags));
  place.check();
  if (!(await place.exists())) throw new UsageError(`no database at ${place.label}: nothing to prune`);
  const apply = flags.yes === true;
  // A sync of these projects must not load beside the delete: the same lock as a sync.
  const lock = apply ? await place.lock(projects) : undefined;
  let counts: PruneCount[];
  try {
    const dest = await place.open(apply ? 'write' : 'read');
    try {
      counts = await pruneAfter(dest, { projects, streams, after, apply });
    } finally {
      await dest.close();
    }
  } finally {
    await lock?.release();
  }
  if (flags.json) return { exitCode: EXIT.ok, json: { after, applied: apply, tables: counts } };
  process.stdout.write(`${safeText(describe(counts, after, apply))}\n`);
  return { exitCode: EXIT.ok };
}

function describe(counts: readonly PruneCount[], after: string, apply: boolean): string {
  if (counts.length === 0) return `nothing dated after ${after}: nothing to remove`;
  const list = counts.map((c) => `${c.table} ${c.rows}`).join(', ');
  return apply
    ? `removed the rows dated after ${after}: ${list}`
    : `would remove the rows dated after ${after}: ${list} (a dry run: nothing removed; add --yes to remove them)`;
}
