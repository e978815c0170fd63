import type { Gap } from '../insights/gaps.js';
import { createJob, type JobContext, type KnownJob } from './jobs.js';
import type { JobGapLink } from './store.js';

/**
 * Starts the agent job of `agent fix`: one job for the gaps, with the prompt written from their
 * evidence, and the link of each gap to it (agent_job_gaps) recorded at once, before any wait.
 */
export async function createFixJob(
  ctx: JobContext,
  link: (links: readonly JobGapLink[]) => Promise<void>,
  gaps: readonly Gap[],
  prompt: string,
): Promise<KnownJob> {
  const job = await createJob(ctx, prompt);
  const createdAt = (ctx.now ?? Date.now)();
  await link(
    gaps.map((g) => ({
      projectId: ctx.projectId,
      jobId: job.id,
      gapId: g.gapId,
      kind: g.kind,
      subjectKey: g.subjectKey,
      subject: g.subject,
      createdAt,
    })),
  );
  return job;
}
