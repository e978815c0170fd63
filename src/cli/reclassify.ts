import type { Command } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { reclassifyEvents, type ReclassifyResult } from '../pipeline/reclassify.js';
import { loadTrafficClasses } from '../sources/events/traffic-class.js';
import { safeText } from '../util/safe-text.js';
import { addDbOptions, dbTargetOf, placeOf } from './destination-flags.js';
import { collect, projectIds, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import type { CommandResult } from './result.js';

interface ReclassifyFlags {
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
    .action((flags: ReclassifyFlags) => run(() => reclassifyCommand(flags)));
}

async function reclassifyCommand(flags: ReclassifyFlags): Promise<CommandResult> {
  const projects = projectIds(flags.project);
  const file = flags.trafficClasses ?? (process.env['MINTLIFY_ETL_TRAFFIC_CLASSES'] || undefined);
  const lists = loadTrafficClasses(file);
  const place = placeOf(dbTargetOf(flags));
  place.check();
  if (!(await place.exists())) throw new UsageError(`no database at ${place.label}: nothing to re-classify`);
  // A sync of these projects must not load events classed by the old lists beside the update.
  const lock = await place.lock(projects);
  let result: ReclassifyResult;
  try {
    const dest = await place.open('write');
    try {
      result = await reclassifyEvents(dest, projects, lists);
    } finally {
      await dest.close();
    }
  } finally {
    await lock.release();
  }
  if (flags.json) return { exitCode: EXIT.ok, json: result };
  const classes = Object.entries(result.byClass)
    .map(([c, n]) => `${c} ${n.toLocaleString('en-US')}`)
    .join(', ');
  process.stdout.write(
    `${safeText(`${result.changed.toLocaleString('en-US')} event(s) changed class; now ${classes || 'no events loaded'}`)}\n`,
  );
  return { exitCode: EXIT.ok };
}
