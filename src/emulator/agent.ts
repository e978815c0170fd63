import { randomUUID } from 'node:crypto';
import { UNANSWERED_QUESTIONS } from './assistant.js';

export type AgentJobStatus = 'active' | 'completed' | 'archived' | 'failed';

export interface AgentJobBody {
  id: string;
  status: AgentJobStatus;
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}

export const AGENT_REPOSITORY = 'https://github.com/acme/docs';
export const AGENT_MODEL = 'claude-sonnet-4-5';

interface Job {
  readonly body: AgentJobBody;
  prompt: string;
  polls: number;
  prNumber: number | undefined;
}

export type PromptCheck = { ok: true; prompt: string } | { ok: false; error: string };

/** The body of create and message: a JSON object with a non-empty string `prompt`. */
export function parsePrompt(raw: Buffer): PromptCheck {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, error: 'Request body must be JSON: {"prompt": "..."}' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: 'Request body must be a JSON object: {"prompt": "..."}' };
  }
  const prompt = (body as Record<string, unknown>)['prompt'];
  if (typeof prompt !== 'string') return { ok: false, error: 'prompt is required and must be a string' };
  if (prompt.length === 0) return { ok: false, error: 'prompt must not be empty' };
  return { ok: true, prompt };
}

/**
 * Agent jobs in memory. A job advances only when polled: the `pollsToFinish`-th GET after
 * creation (or after the last follow-up message) sees it finished. How it finishes is read
 * from the first line of the latest prompt, first match wins: "fail" -> failed; "archive" -> archived with
 * archivedAt; "no changes" -> completed with prLink null; anything else -> completed with a
 * new pull request (a follow-up to a job that already opened one keeps that PR).
 */
export class AgentJobStore {
  private readonly jobs = new Map<string, Job>();
  private nextPr = 101;

  constructor(
    private readonly pollsToFinish: number,
    private readonly now: () => number = Date.now,
    /** Told when a job completes with a pull request: its prompt and the time, epoch ms. */
    private readonly onPullRequest: (prompt: string, at: number) => void = () => undefined,
  ) {}

  create(projectId: string, prompt: string): AgentJobBody {
    const id = `job_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const job: Job = {
      body: {
        id,
        status: 'active',
        source: { repository: AGENT_REPOSITORY, ref: 'main' },
        model: AGENT_MODEL,
        prLink: null,
        createdAt: new Date(this.now()).toISOString(),
        archivedAt: null,
      },
      prompt,
      polls: 0,
      prNumber: undefined,
    };
    this.jobs.set(key(projectId, id), job);
    return snapshot(job);
  }

  /** A poll: may move the job on. Undefined for an unknown id. */
  poll(projectId: string, id: string): AgentJobBody | undefined {
    const job = this.jobs.get(key(projectId, id));
    if (!job) return undefined;
    if (job.body.status === 'active') {
      job.polls++;
      if (job.polls >= this.pollsToFinish) this.finish(job);
    }
    return snapshot(job);
  }

  message(projectId: string, id: string, prompt: string): AgentJobBody | undefined {
    const job = this.jobs.get(key(projectId, id));
    if (!job) return undefined;
    job.prompt = prompt;
    job.polls = 0;
    job.body.status = 'active';
    job.body.prLink = null;
    job.body.archivedAt = null;
    return snapshot(job);
  }

  private finish(job: Job): void {
    // The first line only: a prompt that quotes readers (agent fix) may hold any word below it.
    const prompt = (job.prompt.split('\n')[0] ?? '').toLowerCase();
    if (prompt.includes('fail')) {
      job.body.status = 'failed';
    } else if (prompt.includes('archive')) {
      job.body.status = 'archived';
      job.body.archivedAt = new Date(this.now()).toISOString();
    } else if (prompt.includes('no changes')) {
      job.body.status = 'completed';
    } else {
      job.prNumber ??= this.nextPr++;
      job.body.status = 'completed';
      job.body.prLink = `${AGENT_REPOSITORY}/pull/${job.prNumber}`;
      this.onPullRequest(job.prompt, this.now());
    }
  }
}

function key(projectId: string, id: string): string {
  return `${projectId}\u0000${id}`;
}

function snapshot(job: Job): AgentJobBody {
  return { ...job.body, source: { ...job.body.source } };
}

/** The emulator's unanswered questions a prompt quotes (compared ignoring case). */
export function questionsFixedBy(prompt: string): string[] {
  const text = prompt.toLowerCase();
  return UNANSWERED_QUESTIONS.filter((q) => text.includes(q.toLowerCase()));
}

/** 00:00 UTC of the day after `ms`. */
export function nextUtcDayMs(ms: number): number {
  return (Math.floor(ms / 86_400_000) + 1) * 86_400_000;
}
