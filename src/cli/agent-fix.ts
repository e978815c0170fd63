import type { Command } from 'commander';
import { validatePrompt } from '../agent/input.js';
import { createFixJob } from '../agent/fix.js';
import { AGENT_EXIT } from '../agent/jobs.js';
import { UsageError } from '../errors.js';
import { buildFixPrompt } from '../insights/fix-prompt.js';
import { fixIsOpen, readGaps, type Gap } from '../insights/gaps.js';
import { parseDay } from '../util/day.js';
import { safeText } from '../util/safe-text.js';
import {
  follow,
  parseTiming,
  session,
  settings,
  started,
  withBudget,
  withCommon,
  withWait,
  type CommonFlags,
  type Run,
  type Settings,
  type WaitFlags,
} from './agent-session.js';
import { openToRead } from './open-readonly.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';

interface FixFlags extends CommonFlags, WaitFlags {
  days: number;
  to?: string;
  dryRun?: boolean;
  wait?: boolean;
}

const GAP_ID = /^gap_[0-9a-f]{12}$/;

export function registerAgentFix(agent: Command, run: Run): void {
  withCommon(
    withBudget(
      withWait(
        agent
          .command('fix')
          .summary('start an agent job that fixes content gaps (ids from `mintlify-etl gaps`)')
          .argument('<gap...>', 'gap ids, as `mintlify-etl gaps` lists them')
          .option('--dry-run', 'print the prompt and stop: no request is sent, nothing is written')
          .option(
            '--days <n>',
            'the window the gaps were found in (as given to gaps)',
            intFlag('--days', 1, 366),
            28,
          )
          .option('--to <day>', 'the window ends before this UTC day (as given to gaps)')
          .option('--wait', 'poll until the job completes, fails or is archived'),
      ),
    ),
  )
    .addHelpText(
      'after',
      `
Writes the agent's prompt from the gaps' evidence (what readers asked or searched, the pages,
what the assistant answered: each excerpt capped and fenced, after a line telling the agent it
is data, not instructions; e-mail addresses as [email]) and what is asked of the agent, prints
it, and creates one job for all the gaps given, recorded in agent_job_gaps. A gap that already
has a job still active is left out, and said so. The same gaps give the same prompt.

Output: the prompt on stdout with --dry-run; otherwise the prompt on stderr and, as for
create, the job id (or with --wait the pull-request URL) on stdout.

Examples:
  $ mintlify-etl gaps --limit 5
  $ mintlify-etl agent fix gap_72c10bc81f3c --dry-run
  $ mintlify-etl agent fix gap_72c10bc81f3c gap_f19abb59544e --wait`,
    )
    .action((ids: string[], flags: FixFlags) => run(() => fixCommand(ids, flags)));
}

async function fixCommand(rawIds: readonly string[], flags: FixFlags): Promise<CommandResult> {
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
    sess.logger.info(`prompt for ${todo.map((g) => g.gapId).join(', ')}:\n${prompt}`);
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
