import { createFixJob } from '../agent/fix.js';
import { openAgentApi, waitJob, type JobContext } from '../agent/jobs.js';
import { JobRecorder } from '../agent/store.js';
import type { ApiKey } from '../api/key.js';
import type { Emulator } from '../emulator/index.js';
import { nextUtcDayMs } from '../emulator/agent.js';
import { buildFixPrompt } from '../insights/fix-prompt.js';
import { readGaps, readOutcomes, type Gap } from '../insights/gaps.js';
import type { Place } from '../load/destination.js';
import { addDays, todayUtc } from '../util/day.js';
import { parseRateLimit } from '../util/duration.js';
import type { Logger } from '../util/log.js';

/**
 * The demo's agent works this many days in the past (the emulator's agentClock), so the fix it
 * makes has two weeks of effect in the data already: the effect is measured over 14 days.
 */
export const FIX_DAYS_AGO = 15;
const DAY_MS = 86_400_000;

export function demoAgentClock(): number {
  return Date.now() - FIX_DAYS_AGO * DAY_MS;
}

interface StoryContext {
  readonly emu: Emulator;
  readonly apiKey: ApiKey;
  readonly place: Place;
  readonly log: Logger;
  /** Reads the assistant weeks again from `from` (the fix changed them). */
  readonly resync: (from: string) => Promise<void>;
}

/**
 * A fresh emulator does not know the fixes an earlier demo made: told them before the sync, it
 * serves the same answered questions again, so running the demo twice tells the same story.
 */
export async function replayFixes(emu: Emulator, place: Place): Promise<void> {
  if (!(await place.exists())) return;
  const db = await place.open('read').catch(() => undefined);
  if (db === undefined) return;
  try {
    const rows = await db.session
      .rows(
        `SELECT g.subject, j.completed_at FROM agent_job_gaps g JOIN agent_jobs j USING (project_id, job_id)
       WHERE g.kind = 'unanswered' AND j.status = 'completed' AND j.pr_link IS NOT NULL AND j.completed_at IS NOT NULL`,
      )
      .catch(() => []); // a database made before schema 6 has no fixes
    for (const r of rows)
      emu.fixQuestion(r['subject'] as string, nextUtcDayMs(Date.parse(r['completed_at'] as string)));
  } finally {
    await db.close();
  }
}

/**
 * The loop on the demo's data: the most asked unanswered question of the 28 days before the
 * agent's day, one `agent fix` job for it (completed with a pull request on the agent's clock),
 * the weeks after it read again, and the measured effect. Returns lines to print.
 */
export async function fixStory(c: StoryContext): Promise<string[]> {
  const fixDay = todayUtc(demoAgentClock());
  let gap = await topUnanswered(c.place, c.emu.projectId, fixDay);
  if (gap === undefined) return [];
  if (gap.fix === null) {
    await runFix(c, gap);
    await c.resync(addDays(fixDay, -1));
    gap = (await topUnanswered(c.place, c.emu.projectId, fixDay)) ?? gap;
  }
  const outcome = (await outcomesOf(c.place, c.emu.projectId)).find((o) => o.gapId === gap.gapId);
  return [
    `Content gap: "${gap.subject}" went unanswered ${gap.currentCount} times in the 28 days to ${addDays(fixDay, -1)} (${gap.gapId}).`,
    `agent fix ${gap.gapId}: job ${gap.fix?.jobId ?? '(this run)'} opened ${outcome?.prLink ?? 'a pull request'} on ${fixDay} (the demo's agent works ${FIX_DAYS_AGO} days in the past).`,
    outcome === undefined
      ? 'Its effect: not measured yet.'
      : `Its effect: ${outcome.before?.toFixed(2) ?? '–'} ${outcome.measure} in the 14 days before, ${outcome.after?.toFixed(2) ?? '–'} in the 14 after: ${outcome.verdict}.`,
    '',
  ];
}

async function topUnanswered(place: Place, projectId: string, fixDay: string): Promise<Gap | undefined> {
  const db = await place.open('read');
  try {
    const gaps = await readGaps(db.session, { days: 28, to: fixDay, projectId });
    return gaps.find((g) => g.kind === 'unanswered');
  } finally {
    await db.close();
  }
}

async function outcomesOf(place: Place, projectId: string) {
  const db = await place.open('read');
  try {
    return await readOutcomes(db.session, projectId, 100);
  } finally {
    await db.close();
  }
}

async function runFix(c: StoryContext, gap: Gap): Promise<void> {
  const { api, close } = openAgentApi({
    baseUrl: c.emu.url,
    apiKey: c.apiKey,
    rateLimit: parseRateLimit('100/1h'),
  });
  const recorder = new JobRecorder({ place: c.place, logger: c.log });
  const ctx: JobContext = {
    api,
    projectId: c.emu.projectId,
    record: (s) => recorder.record(s),
    now: demoAgentClock,
  };
  try {
    const prompt = buildFixPrompt([gap]);
    const job = await createFixJob(ctx, (links) => recorder.linkGaps(links), [gap], prompt);
    c.log.info(`agent fix ${gap.gapId}: job ${job.id} created; waiting for its pull request`);
    await waitJob(ctx, job.id, { intervalMs: 50, timeoutMs: 60_000, initial: job, prompt });
  } finally {
    await close();
  }
}
