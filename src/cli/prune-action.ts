import { EXIT, UsageError } from '../errors.js';
import { pruneAfter, type PruneCount } from '../pipeline/prune.js';
import { parseStreams, STREAMS } from '../streams/index.js';
import { parseDay } from '../util/day.js';
import { safeText } from '../util/safe-text.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import { projectIds } from './options.js';
import type { CommandResult } from './result.js';
import type { PruneFlags } from './prune.js';

/*
 * What `mintlify-etl prune` does. Its flags and help are prune.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function pruneCommand(flags: PruneFlags): Promise<CommandResult> {
  if (flags.after === undefined)
    throw new UsageError('prune needs --after YYYY-MM-DD, the last day to keep: e.g. --after 2026-11-26');
  const after = parseDay(flags.after, '--after');
  const projects = projectIds(flags.project);
  const streams = flags.streams === undefined ? STREAMS : parseStreams(flags.streams);
  const place = placeOf(dbTargetOf(flags));
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
