import { defaultSleep, type Sleep } from '../api/retry.js';
import type { AgentJob, AgentJobStatus } from '../api/schemas.js';
import { deadline as pollDeadline } from '../util/deadline.js';

/** The statuses after which a job never changes again on its own. */
export const FINAL_STATUSES: ReadonlySet<AgentJobStatus> = new Set(['completed', 'archived', 'failed']);

export function isFinal(status: AgentJobStatus | undefined): boolean {
  return status !== undefined && FINAL_STATUSES.has(status);
}

export interface Poller {
  getAgentJob(projectId: string, jobId: string, o?: { signal?: AbortSignal }): Promise<AgentJob>;
}

export interface PollEvent {
  readonly job: AgentJob;
  /** Status before this poll; undefined on the first poll of a job not seen before. */
  readonly previous: AgentJobStatus | undefined;
  /** True on the first sighting and whenever the status differs from the previous one. */
  readonly changed: boolean;
  /** Since the wait began. */
  readonly elapsedMs: number;
  /** 1 for the first poll. */
  readonly poll: number;
}

export interface WaitOptions {
  readonly projectId: string;
  readonly jobId: string;
  /** The shortest time between two polls, and the first delay. */
  readonly intervalMs: number;
  /** After this long the wait gives up (the job keeps running on the service). */
  readonly timeoutMs: number;
  /** The state already known (the answer to create or message): the first poll then waits an interval. */
  readonly initial?: AgentJob | undefined;
  /** Each unchanged poll stretches the delay by this factor. Default 1.5. */
  readonly backoffFactor?: number;
  /** The delay never grows past intervalMs times this. Default 4. */
  readonly maxIntervalFactor?: number;
  readonly now?: () => number;
  readonly sleep?: Sleep;
  /** Aborting (Ctrl-C) ends the wait with outcome `interrupted`, the in-flight poll included. */
  readonly signal?: AbortSignal | undefined;
  /** Awaited before the next sleep, so whatever it does (recording) is finished before waiting. */
  readonly onPoll?: (e: PollEvent) => void | Promise<void>;
}

export type WaitOutcome = 'finished' | 'timeout' | 'interrupted';

export interface WaitResult {
  readonly outcome: WaitOutcome;
  /** The last state seen; undefined only when interrupted before the first answer. */
  readonly job: AgentJob | undefined;
  readonly polls: number;
  readonly elapsedMs: number;
}

export const WAIT_DEFAULTS = { backoffFactor: 1.5, maxIntervalFactor: 4 } as const;

/**
 * The delay before the poll after one that saw `changed`: back to the interval when something
 * moved (more may follow soon), otherwise stretched gently up to the cap. Never below the interval.
 */
export function nextDelay(
  current: number,
  changed: boolean,
  intervalMs: number,
  factor: number = WAIT_DEFAULTS.backoffFactor,
  maxFactor: number = WAIT_DEFAULTS.maxIntervalFactor,
): number {
  if (changed) return intervalMs;
  const cap = intervalMs * Math.max(1, maxFactor);
  return Math.max(intervalMs, Math.min(cap, current * Math.max(1, factor)));
}

/**
 * Polls a job until it reaches a final status, the timeout passes or the signal aborts. Poll
 * starts are at least `intervalMs` apart (the request's own time counts toward the delay); the
 * last poll happens at the deadline when a full interval separates it from the one before, so a
 * job that finishes just before the timeout is still seen.
 */
export async function waitForJob(api: Poller, opts: WaitOptions): Promise<WaitResult> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const { signal, intervalMs } = opts;
  const factor = opts.backoffFactor ?? WAIT_DEFAULTS.backoffFactor;
  const maxFactor = opts.maxIntervalFactor ?? WAIT_DEFAULTS.maxIntervalFactor;
  const start = now();
  const deadline = start + opts.timeoutMs;
  let job = opts.initial;
  let polls = 0;
  let delay = intervalMs;
  let lastPollAt = job !== undefined ? start : undefined;
  const result = (outcome: WaitOutcome): WaitResult => ({ outcome, job, polls, elapsedMs: now() - start });

  if (job !== undefined && isFinal(job.status)) return result('finished');
  for (;;) {
    if (lastPollAt !== undefined) {
      let nextAt = lastPollAt + delay;
      if (nextAt > deadline) {
        if (deadline - lastPollAt < intervalMs) return result('timeout');
        nextAt = deadline;
      }
      const ms = nextAt - now();
      if (ms > 0) {
        try {
          await sleep(ms, signal);
        } catch (e) {
          if (signal?.aborted) return result('interrupted');
          throw e;
        }
      }
    }
    if (signal?.aborted) return result('interrupted');
    lastPollAt = now();
    // The poll itself (with its retries) ends at the deadline too: --timeout is a hard bound,
    // even against a server that sends its answer a byte at a time.
    const poll = pollDeadline(Math.max(1, Math.ceil(deadline - lastPollAt)), signal);
    let next: AgentJob;
    try {
      next = await api.getAgentJob(opts.projectId, opts.jobId, { signal: poll.signal });
    } catch (e) {
      if (signal?.aborted) return result('interrupted');
      if (poll.expired) return result('timeout');
      throw e;
    } finally {
      poll.dispose();
    }
    polls++;
    const previous = job?.status;
    const changed = job === undefined || next.status !== previous;
    job = next;
    await opts.onPoll?.({ job, previous, changed, elapsedMs: now() - start, poll: polls });
    if (isFinal(job.status)) return result('finished');
    delay = nextDelay(delay, changed, intervalMs, factor, maxFactor);
  }
}
