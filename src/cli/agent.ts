import type { Command } from 'commander';
import { loadApiKey, type ApiKey } from '../api/key.js';
import type { AgentJob } from '../api/schemas.js';
import { validateJobId, validatePrompt, singleProject } from '../agent/input.js';
import {
  AGENT_EXIT,
  createJob,
  getJob,
  messageJob,
  openAgentApi,
  waitJob,
  type JobContext,
  type KnownJob,
} from '../agent/jobs.js';
import { JobRecorder } from '../agent/store.js';
import type { WaitResult } from '../agent/wait.js';
import { EtlError, EXIT, HttpStatusError, UsageError } from '../errors.js';
import { checkDbPath } from '../load/database.js';
import { formatDuration, parseDuration, parseRateLimit, type RateLimitSpec } from '../util/duration.js';
import { shellWord } from '../util/shell-word.js';
import { createLogger, type Logger } from '../util/log.js';
import { apiUrl, collect, dbPath, projectIds } from './options.js';
import type { CommandResult } from './result.js';

type Run = (fn: () => Promise<CommandResult>) => Promise<void>;

interface CommonFlags {
  project?: string[];
  apiKeyFile?: string;
  apiUrl?: string;
  db?: string;
  json?: boolean;
  /** Only create and message send requests the budget counts. */
  rateLimit?: string;
}

interface WaitFlags {
  interval: string;
  timeout: string;
}

interface CreateFlags extends CommonFlags, WaitFlags {
  prompt: string;
  wait?: boolean;
}

type MessageFlags = CreateFlags;

type WaitCmdFlags = CommonFlags & WaitFlags;

/** Polling faster than this is pointless against a remote service; tests use 20-50 ms. */
const MIN_INTERVAL_MS = 10;

/** The service allows 100 creates and messages per hour. */
const DEFAULT_RATE_LIMIT = '100/1h';

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
}

function withCommon(cmd: Command): Command {
  return cmd
    .option('-p, --project <id>', 'project id (env MINTLIFY_PROJECT_ID); exactly one', collect)
    .option('--db <path>', 'DuckDB file (env MINTLIFY_ETL_DB; default data/analytics.duckdb)')
    .option('--json', 'print the job object on stdout')
    .option('--api-key-file <path>', 'read the admin API key from this file instead of MINTLIFY_API_KEY')
    .option('--api-url <url>', 'API base URL (env MINTLIFY_API_URL; default https://api.mintlify.com)');
}

function withBudget(cmd: Command): Command {
  return cmd.option(
    '--rate-limit <N/DURATION>',
    'budget of create and message requests (the service allows 100/1h)',
    DEFAULT_RATE_LIMIT,
  );
}

function withWait(cmd: Command): Command {
  return cmd
    .option('--interval <duration>', 'time between polls (grows x1.5 up to 4x while nothing changes)', '5s')
    .option('--timeout <duration>', 'stop waiting after this long (the job keeps running)', '30m');
}

interface Timing {
  intervalMs: number;
  timeoutMs: number;
}

function parseTiming(flags: WaitFlags): Timing {
  const intervalMs = parseDuration(flags.interval, '--interval');
  const timeoutMs = parseDuration(flags.timeout, '--timeout');
  if (intervalMs < MIN_INTERVAL_MS) {
    throw new UsageError(`--interval "${flags.interval}" must be at least ${MIN_INTERVAL_MS}ms`);
  }
  if (timeoutMs < intervalMs) {
    throw new UsageError(`--timeout "${flags.timeout}" must be at least --interval "${flags.interval}"`);
  }
  return { intervalMs, timeoutMs };
}

interface Settings {
  projectId: string;
  url: string;
  db: string;
  rateLimit: RateLimitSpec;
}

/** Every check that can fail on input, before the key is read, a request is sent or a file is made. */
function settings(flags: CommonFlags): Settings {
  const db = dbPath(flags.db);
  // A --db that cannot hold the job record must fail before a job is created, not after.
  checkDbPath(db);
  return {
    projectId: singleProject(projectIds(flags.project)),
    rateLimit: parseRateLimit(flags.rateLimit ?? DEFAULT_RATE_LIMIT),
    url: apiUrl(flags.apiUrl),
    db,
  };
}

interface Session {
  readonly ctx: JobContext;
  readonly recorder: JobRecorder;
  readonly logger: Logger;
  readonly projectId: string;
  readonly json: boolean;
  /** The --db given, repeated in the resume hint. */
  readonly dbFlag: string | undefined;
  /** Aborted by the first Ctrl-C (see `interruptible`). */
  readonly signal: AbortSignal;
}

async function session<T>(flags: CommonFlags, s: Settings, fn: (session: Session) => Promise<T>): Promise<T> {
  const apiKey: ApiKey = await loadApiKey({ apiKeyFile: flags.apiKeyFile });
  const logger = createLogger({ key: apiKey });
  const { api, close } = openAgentApi({ baseUrl: s.url, apiKey, rateLimit: s.rateLimit });
  const recorder = new JobRecorder({ dbPath: s.db, logger });
  const interrupt = new AbortController();
  // The first Ctrl-C is ours: a request in flight (a create may already have made the job)
  // finishes so that the id can be printed; the listener is gone after it, so a second Ctrl-C
  // quits at once the usual way.
  const onSigint = (): void => {
    logger.info('interrupted: finishing the request in flight (Ctrl-C again to quit at once)');
    interrupt.abort(new Error('interrupted by Ctrl-C'));
  };
  process.once('SIGINT', onSigint);
  try {
    return await fn({
      ctx: { api, projectId: s.projectId, record: (x) => recorder.record(x) },
      recorder,
      logger,
      projectId: s.projectId,
      json: flags.json === true,
      dbFlag: flags.db,
      signal: interrupt.signal,
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
    await close();
  }
}

function resumeHint(s: Session, jobId: string): string {
  const db = s.dbFlag !== undefined ? ` --db ${shellWord(s.dbFlag)}` : '';
  return `it keeps running on the service: resume with \`mintlify-etl agent wait ${jobId} --project ${s.projectId}${db}\``;
}

/** A record that still failed at the end decides the exit code when the job itself went well. */
function finish(s: Session, exitCode: number, job: AgentJob | undefined): CommandResult {
  const failure = s.recorder.failure;
  const code = exitCode === AGENT_EXIT.ok && failure ? failure.exitCode : exitCode;
  return { exitCode: code, ...(s.json && job !== undefined ? { json: job } : {}) };
}

function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** After create or message without --wait: the id on stdout, for `id=$(...)`. */
function started(s: Session, job: KnownJob, what: string): CommandResult {
  if (s.signal.aborted) {
    s.logger.info(`job ${job.id} ${what} before the interrupt; ${resumeHint(s, job.id)}`);
    return finish(s, AGENT_EXIT.interrupted, job);
  }
  if (!s.json) printLine(job.id);
  return finish(s, AGENT_EXIT.ok, job);
}

async function follow(
  s: Session,
  jobId: string,
  timing: Timing,
  initial: KnownJob | undefined,
  prompt: string | undefined,
): Promise<CommandResult> {
  if (s.signal.aborted) {
    s.logger.info(`job ${jobId}: not waiting (Ctrl-C); ${resumeHint(s, jobId)}`);
    return finish(s, AGENT_EXIT.interrupted, initial);
  }
  let result: WaitResult;
  try {
    result = await waitJob(s.ctx, jobId, {
      ...timing,
      initial,
      prompt,
      signal: s.signal,
      onPoll: (e) => {
        if (!e.changed) return;
        const to = e.job.status ?? 'status unknown';
        s.logger.info(
          e.previous === undefined && initial === undefined
            ? `job ${jobId}: ${to}`
            : `job ${jobId}: ${e.previous ?? 'status unknown'} -> ${to} (${formatDuration(e.elapsedMs)})`,
        );
      },
    });
  } catch (e) {
    // Only when the job may well still be running: not for an unknown job or a refused key.
    const refused =
      (e instanceof EtlError && (e.exitCode === EXIT.usage || e.exitCode === EXIT.auth)) ||
      (e instanceof HttpStatusError && e.status >= 400 && e.status < 500 && e.status !== 429);
    if (!refused) s.logger.info(`job ${jobId}: ${resumeHint(s, jobId)}`);
    throw e;
  }
  return report(s, jobId, timing, result);
}

function report(s: Session, jobId: string, timing: Timing, r: WaitResult): CommandResult {
  const job = r.job;
  if (r.outcome === 'interrupted') {
    s.logger.info(`stopped waiting for job ${jobId} (Ctrl-C); ${resumeHint(s, jobId)}`);
    return finish(s, AGENT_EXIT.interrupted, job);
  }
  if (r.outcome === 'timeout') {
    s.logger.info(
      `job ${jobId} is still ${job?.status ?? 'running'} after ${formatDuration(r.elapsedMs)} (--timeout ${formatDuration(timing.timeoutMs)}); ${resumeHint(s, jobId)}`,
    );
    return finish(s, AGENT_EXIT.notDone, job);
  }
  const status = job?.status;
  if (status === 'failed') {
    s.logger.info(`job ${jobId} failed: no pull request`);
    return finish(s, AGENT_EXIT.notDone, job);
  }
  const prLink = job?.prLink;
  if (prLink) {
    if (!s.json) printLine(prLink);
  } else if (status === 'completed') {
    s.logger.info(`job ${jobId} completed: no files changed, no pull request`);
  } else {
    s.logger.info(`job ${jobId} ${status ?? 'finished'}: no pull request`);
  }
  return finish(s, AGENT_EXIT.ok, job);
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
    if (!sess.json) process.stdout.write(describeJob(job));
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
