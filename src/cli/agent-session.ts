import { loadApiKey, type ApiKey } from '../api/key.js';
import type { AgentJob } from '../api/schemas.js';
import { singleProject } from '../agent/input.js';
import { AGENT_EXIT, openAgentApi, waitJob, type JobContext, type KnownJob } from '../agent/jobs.js';
import { JobRecorder } from '../agent/store.js';
import type { WaitResult } from '../agent/wait.js';
import { EtlError, EXIT, HttpStatusError, UsageError } from '../errors.js';
import { formatDuration, parseDuration, parseRateLimit, type RateLimitSpec } from '../util/duration.js';
import { createLogger, type Logger } from '../util/log.js';
import { safeLine } from '../util/safe-text.js';
import { shellWord } from '../util/shell-word.js';
import { apiUrl, projectIds } from './options.js';
import type { CommandResult } from './result.js';
import { DEFAULT_RATE_LIMIT, type CommonFlags, type WaitFlags } from './agent-flags.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import type { DbTarget } from '../load/target.js';

/*
 * What every agent command shares when it runs (its flags are agent-flags.ts): the session (key,
 * API, recorder, Ctrl-C), and following a job to its end. `agent fix` (agent-fix-action.ts) builds
 * on it like create does.
 */

/** Polling faster than this is pointless against a remote service; tests use 20-50 ms. */
const MIN_INTERVAL_MS = 10;

export interface Timing {
  intervalMs: number;
  timeoutMs: number;
}

export function parseTiming(flags: WaitFlags): Timing {
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

export interface Settings {
  projectId: string;
  url: string;
  /** How messages name the destination (a path, or the URL without its password). */
  db: string;
  target: DbTarget;
  rateLimit: RateLimitSpec;
}

/** Every check that can fail on input, before the key is read, a request is sent or a file is made. */
export function settings(flags: CommonFlags): Settings {
  const target = dbTargetOf(flags);
  // A --db that cannot hold the job record must fail before a job is created, not after.
  placeOf(target).check();
  return {
    target,
    projectId: singleProject(projectIds(flags.project)),
    rateLimit: parseRateLimit(flags.rateLimit ?? DEFAULT_RATE_LIMIT),
    url: apiUrl(flags.apiUrl),
    db: target.label,
  };
}

export interface Session {
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

export async function session<T>(
  flags: CommonFlags,
  s: Settings,
  fn: (session: Session) => Promise<T>,
): Promise<T> {
  const apiKey: ApiKey = await loadApiKey({ apiKeyFile: flags.apiKeyFile });
  const logger = createLogger();
  const { api, close } = openAgentApi({ baseUrl: s.url, apiKey, rateLimit: s.rateLimit });
  const place = placeOf(s.target);
  // A destination that cannot take the job record must fail before a job is created, not after.
  await place.checkWritable();
  const recorder = new JobRecorder({ place, logger });
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

export function resumeHint(s: Session, jobId: string): string {
  const db = s.dbFlag !== undefined ? ` --db ${shellWord(s.dbFlag)}` : '';
  return `it keeps running on the service: resume with \`mintlify-etl agent wait ${jobId} --project ${s.projectId}${db}\``;
}

/** A record that still failed at the end decides the exit code when the job itself went well. */
export function finish(s: Session, exitCode: number, job: AgentJob | undefined): CommandResult {
  const failure = s.recorder.failure;
  const code = exitCode === AGENT_EXIT.ok && failure ? failure.exitCode : exitCode;
  return { exitCode: code, ...(s.json && job !== undefined ? { json: job } : {}) };
}

export function printLine(text: string): void {
  process.stdout.write(`${safeLine(text)}\n`);
}

/** After create or message without --wait: the id on stdout, for `id=$(...)`. */
export function started(s: Session, job: KnownJob, what: string): CommandResult {
  if (s.signal.aborted) {
    s.logger.info(`job ${job.id} ${what} before the interrupt; ${resumeHint(s, job.id)}`);
    return finish(s, AGENT_EXIT.interrupted, job);
  }
  if (!s.json) printLine(job.id);
  return finish(s, AGENT_EXIT.ok, job);
}

export async function follow(
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

export function report(s: Session, jobId: string, timing: Timing, r: WaitResult): CommandResult {
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
