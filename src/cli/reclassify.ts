import type { Command } from 'commander';
import { addDbOptions } from './db-flags.js';
import { collect, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import type { CommandResult } from './result.js';

export interface ReclassifyFlags {
  project?: string[];
  trafficClasses?: string;
  db?: string;
  schema?: string;
  json?: boolean;
}

export const RECLASSIFY_SUMMARY =
  "re-classify the loaded events' traffic (human, ai_answers, ...) by the user agent lists";

export function registerReclassify(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  const cmd = program
    .command('reclassify')
    .summary(RECLASSIFY_SUMMARY)
    .description(
      "Gives every loaded event of the event stream (sync --events) the traffic class the user agent lists say: the first list (ai_answers, search_index, training, other_bot) holding a case-insensitive substring of the event's user agent, else human. The lists are config/traffic-classes.json (Mintlify's published lists) or --traffic-classes FILE; pass the same file to sync (or set MINTLIFY_ETL_TRAFFIC_CLASSES for both) so that new events are classed alike.",
    )
    .option(PROJECTS_FLAG, PROJECTS_HELP, collect)
    .option(
      '--traffic-classes <file>',
      'the user agent lists (env MINTLIFY_ETL_TRAFFIC_CLASSES; default the packaged config/traffic-classes.json)',
    );
  addDbOptions(cmd, 'the database to re-classify');
  cmd
    .option('--json', 'print the counts as JSON on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl reclassify                                      # the packaged lists
  $ mintlify-etl reclassify --traffic-classes my-classes.json    # your own`,
    )
    .action((flags: ReclassifyFlags) =>
      run(async () => (await import('./reclassify-action.js')).reclassifyCommand(flags)),
    );
}
