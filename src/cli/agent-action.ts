import { validateJobId, validatePrompt } from '../agent/input.js';
import { AGENT_EXIT, createJob, getJob, messageJob, type KnownJob } from '../agent/jobs.js';
import { finish, follow, parseTiming, session, settings, started } from './agent-session.js';
import type { CommonFlags } from './agent-flags.js';
import type { CommandResult } from './result.js';
import { safeText } from '../util/safe-text.js';
import type { CreateFlags, MessageFlags, WaitCmdFlags } from './agent.js';

/*
 * What `mintlify-etl agent` does. Its flags and help are agent.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function createCommand(flags: CreateFlags): Promise<CommandResult> {
  const prompt = validatePrompt(flags.prompt);
  const timing = parseTiming(flags);
  const s = settings(flags);
  return session(flags, s, async (sess) => {
    const job = await createJob(sess.ctx, prompt);
    sess.logger.info(
      `job ${job.id} created in project ${sess.projectId} (${job.status ?? 'status unknown'})`,
    );
    if (!flags.wait) return started(sess, job, 'was created');
    return follow(sess, job.id, timing, job, prompt);
  });
}

export async function messageCommand(rawId: string, flags: MessageFlags): Promise<CommandResult> {
  const jobId = validateJobId(rawId);
  const prompt = validatePrompt(flags.prompt);
  const timing = parseTiming(flags);
  const s = settings(flags);
  return session(flags, s, async (sess) => {
    const job = await messageJob(sess.ctx, jobId, prompt);
    sess.logger.info(`job ${jobId}: message sent (${job.status ?? 'status unknown'})`);
    if (!flags.wait) return started(sess, job, 'got the message');
    return follow(sess, jobId, timing, job, prompt);
  });
}

export async function waitCommand(rawId: string, flags: WaitCmdFlags): Promise<CommandResult> {
  const jobId = validateJobId(rawId);
  const timing = parseTiming(flags);
  const s = settings(flags);
  return session(flags, s, (sess) => follow(sess, jobId, timing, undefined, undefined));
}

export async function getCommand(rawId: string, flags: CommonFlags): Promise<CommandResult> {
  const jobId = validateJobId(rawId);
  const s = settings(flags);
  return session(flags, s, async (sess) => {
    const job = await getJob(sess.ctx, jobId);
    if (!sess.json) process.stdout.write(safeText(describeJob(job)));
    return finish(sess, AGENT_EXIT.ok, job);
  });
}

export function describeJob(job: KnownJob): string {
  const rows: [string, string | null | undefined][] = [
    ['id', job.id],
    ['status', job.status],
    ['pr', job.prLink],
    ['repository', job.source?.repository],
    ['ref', job.source?.ref],
    ['model', job.model],
    ['created', job.createdAt],
    ['archived', job.archivedAt],
  ];
  return rows.map(([k, v]) => `${k.padEnd(11)}${v ?? '-'}\n`).join('');
}
