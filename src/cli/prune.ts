import type { Command } from 'commander';
import { STREAM_NAMES } from '../streams/names.js';
import { addDbOptions } from './db-flags.js';
import { collect, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import type { CommandResult } from './result.js';

export interface PruneFlags {
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
      `streams whose rows go, comma-separated (default: all: ${STREAM_NAMES.join(',')})`,
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
    .action((flags: PruneFlags) => run(async () => (await import('./prune-action.js')).pruneCommand(flags)));
}
