import { RequestBudget } from '../api/budget.js';
import { MintlifyClient, type CallOptions, type MintlifyClientOptions } from '../api/client.js';
import type { ApiKey } from '../api/key.js';
import type { AgentJob } from '../api/schemas.js';
import { EtlError, EXIT, HttpStatusError, InternalError, RateLimitError, UsageError } from '../errors.js';
import type { RateLimitSpec } from '../util/duration.js';
import type { JobSighting } from './store.js';
import { waitForJob, type Poller, type WaitOptions, type WaitResult } from './wait.js';

/**
 * Exit codes of the agent commands, within the tool's table: 0 the job completed (with or
 * without a pull request) or was archived; 4 the job did not get done: it failed, it was still
 * running when --timeout ran out, or the rate limit kept it from being created; 130 interrupted
 * by Ctrl-C (the shell convention 128 + SIGINT; the job keeps running on the service).
 */
export const AGENT_EXIT = { ok: EXIT.ok, notDone: EXIT.windowsFailed, interrupted: 130 } as const;

export interface AgentApi extends Poller {
  createAgentJob(projectId: string, prompt: string, o?: CallOptions): Promise<AgentJob>;
  sendAgentMessage(projectId: string, jobId: string, prompt: string, o?: CallOptions): Promise<AgentJob>;
}

/** A job id the service does not know (404). Exit 2: the id or the project is wrong. */
export class JobNotFoundError extends EtlError {
  readonly code = 'E_JOB_NOT_FOUND';
  readonly exitCode = EXIT.usage;
}

/** The budget or the server's 429 would make us wait longer than allowed. Exit 4: nothing was done. */
export class AgentRateLimitError extends EtlError {
  readonly code = 'E_AGENT_RATE_LIMIT';
  readonly exitCode = AGENT_EXIT.notDone;
}

/**
 * Polls (GET) are not limited by the service's documentation, and --interval already spaces
 * them; this cap only keeps a tiny --interval from hammering the API. Its short window means
 * that when it does bind, the wait is under a minute, never an hour-long stall.
 */
export const POLL_RATE_LIMIT: RateLimitSpec = { limit: 60, windowMs: 60_000, text: '60/1m' };

export interface AgentApiOptions {
  readonly baseUrl: string;
  readonly apiKey: ApiKey;
  /** Budget of create and message (the service allows 100 per project per hour). */
  readonly rateLimit: RateLimitSpec;
  readonly client?: Partial<Omit<MintlifyClientOptions, 'baseUrl' | 'apiKey' | 'budget'>>;
}

/**
 * Create and message spend the documented budget; polls go through their own so that a long
 * wait (a poll every 20 s is 180 an hour) can never use up the creates or stall on them.
 */
export function openAgentApi(opts: AgentApiOptions): { api: AgentApi; close: () => Promise<void> } {
  const common = { baseUrl: opts.baseUrl, apiKey: opts.apiKey, ...opts.client };
  const writes = new MintlifyClient({ ...common, budget: new RequestBudget(opts.rateLimit) });
  const reads = new MintlifyClient({ ...common, budget: new RequestBudget(POLL_RATE_LIMIT) });
  return {
    api: {
      createAgentJob: (p, prompt, o) => writes.createAgentJob(p, prompt, o),
      sendAgentMessage: (p, id, prompt, o) => writes.sendAgentMessage(p, id, prompt, o),
      getAgentJob: (p, id, o) => reads.getAgentJob(p, id, o),
    },
    close: async () => {
      await Promise.all([writes.close(), reads.close()]);
    },
  };
}

export type Recorder = (s: JobSighting) => Promise<void>;

export interface JobContext {
  readonly api: AgentApi;
  readonly projectId: string;
  /** Every job seen is handed here (the CLI records it in agent_jobs). */
  readonly record: Recorder;
  readonly now?: () => number;
}

/** A job known to have an id: the only kind the commands go on with. */
export type KnownJob = AgentJob & { readonly id: string };

function withId(job: AgentJob, id: string): KnownJob {
  return { ...job, id: job.id ?? id };
}

/** Turns the service's refusals into messages about jobs and projects instead of URLs. */
function translate(e: unknown, projectId: string, jobId: string | undefined, doing: string): unknown {
  if (e instanceof RateLimitError) {
    return new AgentRateLimitError(
      `${doing}: ${e.message}`,
      { projectId, jobId, waitMs: e.waitMs },
      { cause: e },
    );
  }
  if (!(e instanceof HttpStatusError)) return e;
  if (e.status === 404) {
    const aboutProject = jobId === undefined || /project/i.test(e.serverError ?? '');
    return new JobNotFoundError(
      aboutProject
        ? `project ${projectId} not found (404): check --project / MINTLIFY_PROJECT_ID (the id is on the dashboard's API keys page)`
        : `job ${jobId} not found in project ${projectId}`,
      { projectId, jobId },
      { cause: e },
    );
  }
  if (e.status === 400) {
    const detail = [e.serverError, ...e.serverDetails].filter((x) => x !== undefined && x !== '').join('; ');
    return new UsageError(`${doing}: the service refused the request (400)${detail ? `: ${detail}` : ''}`, {
      projectId,
      jobId,
    });
  }
  return e;
}

export async function createJob(ctx: JobContext, prompt: string): Promise<KnownJob> {
  let job: AgentJob;
  try {
    job = await ctx.api.createAgentJob(ctx.projectId, prompt);
  } catch (e) {
    throw translate(e, ctx.projectId, undefined, 'agent job not created');
  }
  if (job.id === undefined || job.id === '') {
    throw new InternalError(
      `the service answered the create with no job id (status ${job.status ?? 'unknown'}): the job may exist, look for it in the dashboard`,
      { projectId: ctx.projectId },
    );
  }
  const known = withId(job, job.id);
  await ctx.record({
    projectId: ctx.projectId,
    jobId: known.id,
    job: known,
    prompt,
    seenAt: (ctx.now ?? Date.now)(),
  });
  return known;
}

export async function getJob(ctx: JobContext, jobId: string): Promise<KnownJob> {
  let job: AgentJob;
  try {
    job = await ctx.api.getAgentJob(ctx.projectId, jobId);
  } catch (e) {
    throw translate(e, ctx.projectId, jobId, `job ${jobId} not read`);
  }
  const known = withId(job, jobId);
  await ctx.record({ projectId: ctx.projectId, jobId, job: known, seenAt: (ctx.now ?? Date.now)() });
  return known;
}

export async function messageJob(ctx: JobContext, jobId: string, prompt: string): Promise<KnownJob> {
  let job: AgentJob;
  try {
    job = await ctx.api.sendAgentMessage(ctx.projectId, jobId, prompt);
  } catch (e) {
    throw translate(e, ctx.projectId, jobId, `message not sent to job ${jobId}`);
  }
  const known = withId(job, jobId);
  await ctx.record({ projectId: ctx.projectId, jobId, job: known, prompt, seenAt: (ctx.now ?? Date.now)() });
  return known;
}

export interface WaitJobOptions extends Omit<WaitOptions, 'projectId' | 'jobId'> {
  /** Sent with every record when this process knows it (create --wait, message --wait). */
  readonly prompt?: string | undefined;
}

/**
 * Waits for a job and records what it sees: every poll whose status changed, and the last
 * state however the wait ended (so last_seen_at is current), each exactly once.
 */
export async function waitJob(ctx: JobContext, jobId: string, opts: WaitJobOptions): Promise<WaitResult> {
  const now = opts.now ?? ctx.now ?? Date.now;
  let recorded: AgentJob | undefined = opts.initial;
  const record = async (job: AgentJob): Promise<void> => {
    recorded = job;
    await ctx.record({
      projectId: ctx.projectId,
      jobId,
      job: withId(job, jobId),
      prompt: opts.prompt,
      seenAt: now(),
    });
  };
  let result: WaitResult;
  try {
    result = await waitForJob(ctx.api, {
      ...opts,
      now,
      projectId: ctx.projectId,
      jobId,
      onPoll: async (e) => {
        if (e.changed) await record(e.job);
        await opts.onPoll?.(e);
      },
    });
  } catch (e) {
    throw translate(e, ctx.projectId, jobId, `stopped waiting for job ${jobId}`);
  }
  if (result.job !== undefined && result.job !== recorded) await record(result.job);
  return result;
}
