import type { Command } from 'commander';
import { registerAgentFix } from './agent-fix.js';
import {
  withBudget,
  withCommon,
  withWait,
  type CommonFlags,
  type Run,
  type WaitFlags,
} from './agent-flags.js';

export interface CreateFlags extends CommonFlags, WaitFlags {
  prompt: string;
  wait?: boolean;
}

export type MessageFlags = CreateFlags;

export type WaitCmdFlags = CommonFlags & WaitFlags;

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
    .action((flags: CreateFlags) =>
      run(async () => (await import('./agent-action.js')).createCommand(flags)),
    );

  withCommon(agent.command('get').summary("show a job's current state").argument('<id>', 'job id')).action(
    (id: string, flags: CommonFlags) =>
      run(async () => (await import('./agent-action.js')).getCommand(id, flags)),
  );

  withCommon(
    withWait(
      agent
        .command('wait')
        .summary('poll a job until it completes, fails or is archived; print the pull-request URL')
        .argument('<id>', 'job id'),
    ),
  ).action((id: string, flags: WaitCmdFlags) =>
    run(async () => (await import('./agent-action.js')).waitCommand(id, flags)),
  );

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
  ).action((id: string, flags: MessageFlags) =>
    run(async () => (await import('./agent-action.js')).messageCommand(id, flags)),
  );

  registerAgentFix(agent, run);
}
