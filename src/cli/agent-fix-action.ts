import { validatePrompt } from '../agent/input.js';
import { createFixJob } from '../agent/fix.js';
import { AGENT_EXIT } from '../agent/jobs.js';
import { UsageError } from '../errors.js';
import { buildFixPrompt } from '../insights/fix-prompt.js';
import { fixIsOpen, readGaps, type Gap } from '../insights/gaps.js';
import { parseDay } from '../util/day.js';
import { safeText } from '../util/safe-text.js';
import { follow, parseTiming, session, settings, started, type Settings } from './agent-session.js';
import { openToRead } from './open-readonly.js';
import type { CommandResult } from './result.js';
import type { FixFlags } from './agent-fix.js';

/*
 * What `mintlify-etl agent fix` does. Its flags and help are agent-fix.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

const GAP_ID = /^gap_[0-9a-f]{12}$/;

export async function fixCommand(rawIds: readonly string[], flags: FixFlags): Promise<CommandResult> {
  const ids = [...new Set(rawIds)];
  const bad = ids.filter((id) => !GAP_ID.test(id));
  if (bad.length > 0) {
    throw new UsageError(
      `not a gap id: ${bad.join(', ')} (ids look like gap_72c10bc81f3c: see \`mintlify-etl gaps\`)`,
    );
  }
  const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
  const timing = parseTiming(flags);
  const s = settings(flags);
  const gaps = await gapsToFix(s, ids, flags.days, to);
  const open = gaps.filter((g) => fixIsOpen(g.fix));
  for (const g of open) {
    process.stderr.write(
      `mintlify-etl: gap ${g.gapId} already has a job in progress, ${g.fix?.jobId ?? ''}: follow it with \`mintlify-etl agent wait ${g.fix?.jobId ?? ''} --project ${s.projectId}\`\n`,
    );
  }
  const todo = gaps.filter((g) => !fixIsOpen(g.fix));
  if (todo.length === 0)
    return { exitCode: AGENT_EXIT.ok, ...(flags.json ? { json: { created: null, open } } : {}) };
  const prompt = validatePrompt(buildFixPrompt(todo), 'the fix prompt');
  if (flags.dryRun) {
    if (!flags.json) process.stdout.write(`${safeText(prompt)}\n`);
    return {
      exitCode: AGENT_EXIT.ok,
      ...(flags.json ? { json: { prompt, gaps: todo.map((g) => g.gapId) } } : {}),
    };
  }
  return session(flags, s, async (sess) => {
    // One log line per prompt line, indented: the logger escapes a line break inside a line (readers'
    // text cannot forge a log line), which made the whole prompt one unreadable line.
    sess.logger.info(`prompt for ${todo.map((g) => g.gapId).join(', ')}:`);
    for (const line of prompt.split('\n')) sess.logger.info(`  ${line}`);
    const job = await createFixJob(sess.ctx, (links) => sess.recorder.linkGaps(links), todo, prompt);
    sess.logger.info(`job ${job.id} created in project ${s.projectId} for ${todo.length} gap(s)`);
    if (!flags.wait) return started(sess, job, 'was created');
    return follow(sess, job.id, timing, job, prompt);
  });
}

/** The gaps named, from the same window `gaps` shows; every id must be one of them. */
async function gapsToFix(
  s: Settings,
  ids: readonly string[],
  days: number,
  to: string | undefined,
): Promise<Gap[]> {
  const db = await openToRead(s.target);
  try {
    const gaps = await readGaps(db.session, {
      days,
      projectId: s.projectId,
      gapIds: ids,
      ...(to !== undefined ? { to } : {}),
    });
    const missing = ids.filter((id) => !gaps.some((g) => g.gapId === id));
    if (missing.length > 0) {
      throw new UsageError(
        `${missing.join(', ')}: not a content gap of project ${s.projectId} in the ${days} days ${to !== undefined ? `before ${to}` : 'to its last complete loaded day'}: see \`mintlify-etl gaps --project ${s.projectId}\``,
        { missing },
      );
    }
    return gaps;
  } finally {
    await db.close();
  }
}
