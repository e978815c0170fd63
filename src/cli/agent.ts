import type { Command } from 'commander';
import { validateJobId, validatePrompt } from '../agent/input.js';
import { AGENT_EXIT, createJob, getJob, messageJob, type KnownJob } from '../agent/jobs.js';
import { registerAgentFix } from './agent-fix.js';
import {
  finish,
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
  type WaitFlags,
} from './agent-session.js';
import type { CommandResult } from './result.js';
import { safeText } from '../util/safe-text.js';

interface CreateFlags extends CommonFlags, WaitFlags {
  prompt: string;
  wait?: boolean;
}

type MessageFlags = CreateFlags;

type WaitCmdFlags = CommonFlags & WaitFlags;

export function registerAgent(program: Command, run: Run): void {
  const agent = program
    .command('agent')
    .summary('create, follow and message Mintlify agent jobs (recorded in agent_jobs)')
    .description(
      `Drives the service's background agent: a job takes a prompt, edits the docs
repository and opens a pull request when it changed files. Every job seen is
recorded in the agent_jobs table of the database, which is opened only for each
write, so a long wait never holds it.

Project from --project or MINTLIFY_PROJECT_ID (exactly one); key from
MINTLIFY_API_KEY or --api-key-file.`,
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 completed (with or without a pull request) or archived;
2 bad usage or unknown job id; 3 key refused; 4 the job failed, is still
running at --timeout, or the rate limit refused the request; 5 the database
is in use (the job itself is fine: its id or PR link is printed); 130 Ctrl-C.`,
    );

  withCommon(
    withBudget(
      withWait(
        agent
          .command('create')
          .summary('start an agent job; --wait follows it and prints the pull-request URL')
          .requiredOption('--prompt <text>', 'the instruction for the agent (at most 10,000 characters)')
          .option('--wait', 'poll until the job completes, fails or is archived'),
      ),
    ),
  )
    .addHelpText(
      'after',
      `
Output: without --wait the job id on stdout; with --wait the pull-request URL (nothing when the
job changed no files); with --json the job object instead. Status changes go to stderr.

Examples:
  $ mintlify-etl agent create --prompt "Document the new rate limits" --wait
  $ pr=$(mintlify-etl agent create --prompt "Fix broken links in /guides" --wait) && gh pr view "$pr"`,
    )
    .action((flags: CreateFlags) => run(() => createCommand(flags)));

  withCommon(agent.command('get').summary("show a job's current state").argument('<id>', 'job id')).action(
    (id: string, flags: CommonFlags) => run(() => getCommand(id, flags)),
  );

  withCommon(
    withWait(
      agent
        .command('wait')
        .summary('poll a job until it completes, fails or is archived; print the pull-request URL')
        .argument('<id>', 'job id'),
    ),
  ).action((id: string, flags: WaitCmdFlags) => run(() => waitCommand(id, flags)));

  withCommon(
    withBudget(
      withWait(
        agent
          .command('message')
          .summary('send a follow-up prompt to a job; --wait follows it again')
          .argument('<id>', 'job id')
          .requiredOption('--prompt <text>', 'the follow-up instruction (at most 10,000 characters)')
          .option('--wait', 'poll until the job completes, fails or is archived'),
      ),
    ),
  ).action((id: string, flags: MessageFlags) => run(() => messageCommand(id, flags)));

  registerAgentFix(agent, run);
}

async function createCommand(flags: CreateFlags): Promise<CommandResult> {
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

async function messageCommand(rawId: string, flags: MessageFlags): Promise<CommandResult> {
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

async function waitCommand(rawId: string, flags: WaitCmdFlags): Promise<CommandResult> {
  const jobId = validateJobId(rawId);
  const timing = parseTiming(flags);
  const s = settings(flags);
  return session(flags, s, (sess) => follow(sess, jobId, timing, undefined, undefined));
}

async function getCommand(rawId: string, flags: CommonFlags): Promise<CommandResult> {
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
