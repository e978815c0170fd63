import type { Command } from 'commander';
import { SCHEMA_FLAG, SCHEMA_HELP } from './db-flags.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';

export interface DemoFlags {
  db: string;
  schema?: string;
  days: number;
  seed: number;
}

export function registerDemo(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('demo')
    .summary('try it with no account: local emulator + sync + report')
    .description(
      'Starts the local API emulator in this process, syncs the last --days days into --db through the same pipeline a real sync uses (budget, retries, one transaction per day), prints the report, and shows the next commands to try. Needs no key and no network.',
    )
    .option(
      '--db <path|url>',
      'where to load: a DuckDB file to create or update, or postgresql://USER@HOST:5432/DATABASE',
      'data/demo.duckdb',
    )
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('--days <n>', 'days to sync, ending yesterday (UTC)', intFlag('--days', 7, 730), 90)
    .option('--seed <n>', 'emulator data seed', intFlag('--seed', 0), 42)
    .action((flags: DemoFlags) => run(async () => (await import('./demo-action.js')).demoCommand(flags)));
}
