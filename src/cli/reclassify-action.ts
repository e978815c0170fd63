import { EXIT, UsageError } from '../errors.js';
import { reclassifyEvents, type ReclassifyResult } from '../pipeline/reclassify.js';
import { loadTrafficClasses } from '../sources/events/traffic-class.js';
import { safeText } from '../util/safe-text.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import { projectIds } from './options.js';
import type { CommandResult } from './result.js';
import type { ReclassifyFlags } from './reclassify.js';

/*
 * What `mintlify-etl reclassify` does. Its flags and help are reclassify.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function reclassifyCommand(flags: ReclassifyFlags): Promise<CommandResult> {
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
