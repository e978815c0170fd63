import type { Command } from 'commander';
import {
  withBudget,
  withCommon,
  withWait,
  type CommonFlags,
  type Run,
  type WaitFlags,
} from './agent-flags.js';
import { intFlag } from './options.js';

export interface FixFlags extends CommonFlags, WaitFlags {
  days: number;
  to?: string;
  dryRun?: boolean;
  wait?: boolean;
}

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
    .action((ids: string[], flags: FixFlags) =>
      run(async () => (await import('./agent-fix-action.js')).fixCommand(ids, flags)),
    );
}
