import { describe, expect, it } from 'vitest';
import { AGENT_EXIT, AgentRateLimitError, waitJob, type AgentApi } from '../../src/agent/jobs.js';
import type { JobSighting } from '../../src/agent/store.js';
import { nextDelay, waitForJob, type PollEvent, type WaitOptions } from '../../src/agent/wait.js';
import type { AgentJob, AgentJobStatus } from '../../src/api/schemas.js';
import { RateLimitError } from '../../src/errors.js';

const START = 1_700_000_000_000;

/** A fake clock whose sleeps just move time on, and an API that answers from a script of statuses. */
function harness(statuses: (AgentJobStatus | undefined)[], opts: { latencyMs?: number } = {}) {
  let t = START;
  const sleeps: number[] = [];
  const polls: number[] = [];
  const events: string[] = [];
  let i = 0;
  const api: AgentApi = {
    getAgentJob: (_p, id) => {
      polls.push(t - START);
      events.push('poll');
      t += opts.latencyMs ?? 0;
      const status = statuses[Math.min(i++, statuses.length - 1)];
      return Promise.resolve({
        id,
        ...(status !== undefined ? { status } : {}),
        prLink: status === 'completed' ? 'https://github.com/o/r/pull/7' : null,
      });
    },
    createAgentJob: () => Promise.reject(new Error('not in this test')),
    sendAgentMessage: () => Promise.reject(new Error('not in this test')),
  };
  const base: Omit<WaitOptions, 'intervalMs' | 'timeoutMs'> = {
    projectId: 'p',
    jobId: 'job_1',
    now: () => t,
    sleep: (ms) => {
      sleeps.push(ms);
      events.push('sleep');
      t += ms;
      return Promise.resolve();
    },
  };
  return { api, base, sleeps, polls, events, elapsed: () => t - START };
}

const active: AgentJob = { id: 'job_1', status: 'active', prLink: null };
const gaps = (xs: number[]): number[] => xs.slice(1).map((x, i) => x - (xs[i] ?? 0));

describe('nextDelay', () => {
  it('stretches an unchanged poll by 1.5 and caps it at 4 intervals', () => {
    expect(nextDelay(1000, false, 1000)).toBe(1500);
    expect(nextDelay(1500, false, 1000)).toBe(2250);
    expect(nextDelay(3375, false, 1000)).toBe(4000);
    expect(nextDelay(4000, false, 1000)).toBe(4000);
  });

  it('goes back to the interval after a change', () => {
    expect(nextDelay(4000, true, 1000)).toBe(1000);
  });

  it('never goes below the interval, whatever the factors', () => {
    expect(nextDelay(1000, false, 1000, 0.5, 0.5)).toBe(1000);
  });
});

describe('waitForJob', () => {
  it('polls one interval after the known state, then backs off x1.5 up to 4x the interval', async () => {
    const h = harness([...Array<AgentJobStatus>(7).fill('active'), 'completed']);
    const r = await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 3_600_000, initial: active });
    expect(r.outcome).toBe('finished');
    expect(r.job?.status).toBe('completed');
    expect(r.job?.prLink).toBe('https://github.com/o/r/pull/7');
    expect(r.polls).toBe(8);
    expect(h.polls[0]).toBe(1000);
    expect(gaps(h.polls)).toEqual([1500, 2250, 3375, 4000, 4000, 4000, 4000]);
  });

  it('counts the request time toward the delay, so poll starts keep the same spacing', async () => {
    const h = harness(['active', 'active', 'active', 'completed'], { latencyMs: 300 });
    await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 3_600_000, initial: active });
    expect(gaps(h.polls)).toEqual([1500, 2250, 3375]);
    expect(h.sleeps).toEqual([1000, 1200, 1950, 3075]);
  });

  it('never polls sooner than the interval even when a request takes longer than the delay', async () => {
    const h = harness(['active', 'active', 'completed'], { latencyMs: 5000 });
    await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 3_600_000, initial: active });
    expect(gaps(h.polls)).toEqual([5000, 5000]);
    expect(h.sleeps).toEqual([1000]);
  });

  it('without a known state polls at once and reports the first answer as a change', async () => {
    const h = harness(['active', 'active', 'failed']);
    const seen: PollEvent[] = [];
    const r = await waitForJob(h.api, {
      ...h.base,
      intervalMs: 50,
      timeoutMs: 60_000,
      onPoll: (e) => void seen.push(e),
    });
    expect(h.polls).toEqual([0, 50, 125]);
    expect(seen.map((e) => [e.previous, e.job.status, e.changed, e.poll])).toEqual([
      [undefined, 'active', true, 1],
      ['active', 'active', false, 2],
      ['active', 'failed', true, 3],
    ]);
    expect(r.outcome).toBe('finished');
    expect(r.job?.status).toBe('failed');
  });

  it('keeps the interval while the status keeps changing (a missing status counts as a change)', async () => {
    const h = harness([undefined, 'active', undefined, 'active', 'archived']);
    await waitForJob(h.api, { ...h.base, intervalMs: 100, timeoutMs: 60_000, initial: active });
    expect(gaps(h.polls)).toEqual([100, 100, 100, 100]);
  });

  it('does not poll at all when the known state is already final', async () => {
    const h = harness(['active']);
    const done: AgentJob = { id: 'job_1', status: 'archived' };
    const r = await waitForJob(h.api, { ...h.base, intervalMs: 100, timeoutMs: 1000, initial: done });
    expect(r).toEqual({ outcome: 'finished', job: done, polls: 0, elapsedMs: 0 });
    expect(h.polls).toEqual([]);
  });

  it('makes a last poll at the deadline when a full interval separates it from the previous one', async () => {
    const h = harness(['active']);
    const r = await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 10_000, initial: active });
    expect(h.polls).toEqual([1000, 2500, 4750, 8125, 10_000]);
    expect(r.outcome).toBe('timeout');
    expect(r.job?.status).toBe('active');
    expect(r.elapsedMs).toBe(10_000);
  });

  it('times out without a poll closer than an interval to the previous one', async () => {
    const h = harness(['active']);
    const r = await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 9000, initial: active });
    expect(h.polls).toEqual([1000, 2500, 4750, 8125]);
    expect(r.outcome).toBe('timeout');
    expect(r.polls).toBe(4);
    expect(h.elapsed()).toBe(8125);
  });

  it('finishes when the poll at the deadline sees the job done', async () => {
    const h = harness(['active', 'active', 'active', 'active', 'completed']);
    const r = await waitForJob(h.api, { ...h.base, intervalMs: 1000, timeoutMs: 10_000, initial: active });
    expect(r.outcome).toBe('finished');
    expect(r.elapsedMs).toBe(10_000);
  });

  it('waits for onPoll (the database write) before it sleeps', async () => {
    const h = harness(['active', 'completed']);
    await waitForJob(h.api, {
      ...h.base,
      intervalMs: 10,
      timeoutMs: 1000,
      initial: active,
      onPoll: async () => {
        await new Promise((r) => setTimeout(r, 5));
        h.events.push('recorded');
      },
    });
    expect(h.events).toEqual(['sleep', 'poll', 'recorded', 'sleep', 'poll', 'recorded']);
  });

  it('ends with outcome interrupted when the signal aborts during a sleep, keeping the last state', async () => {
    const h = harness(['active']);
    const ac = new AbortController();
    let sleeps = 0;
    const r = await waitForJob(h.api, {
      ...h.base,
      intervalMs: 1000,
      timeoutMs: 3_600_000,
      signal: ac.signal,
      sleep: (_ms, signal) => {
        if (++sleeps === 3) ac.abort(new Error('Ctrl-C'));
        return signal?.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve();
      },
    });
    expect(r.outcome).toBe('interrupted');
    expect(r.polls).toBe(3);
    expect(r.job?.status).toBe('active');
  });

  it('ends with outcome interrupted when the signal aborts a poll in flight', async () => {
    const ac = new AbortController();
    const api: AgentApi = {
      getAgentJob: () => {
        ac.abort(new Error('Ctrl-C'));
        return Promise.reject(new Error('aborted'));
      },
      createAgentJob: () => Promise.reject(new Error('unused')),
      sendAgentMessage: () => Promise.reject(new Error('unused')),
    };
    const r = await waitForJob(api, {
      projectId: 'p',
      jobId: 'j',
      intervalMs: 10,
      timeoutMs: 100,
      signal: ac.signal,
    });
    expect(r).toMatchObject({ outcome: 'interrupted', job: undefined, polls: 0 });
  });

  it('lets a poll failure that is not an interruption reach the caller', async () => {
    const api: AgentApi = {
      getAgentJob: () => Promise.reject(new Error('boom')),
      createAgentJob: () => Promise.reject(new Error('unused')),
      sendAgentMessage: () => Promise.reject(new Error('unused')),
    };
    await expect(
      waitForJob(api, { projectId: 'p', jobId: 'j', intervalMs: 10, timeoutMs: 100 }),
    ).rejects.toThrow('boom');
  });
});

describe('waitJob records what it sees', () => {
  function recording() {
    const rows: JobSighting[] = [];
    return { rows, record: (s: JobSighting) => Promise.resolve(void rows.push(s)) };
  }

  it('records each status change and the final state once, with the prompt it knows, not the known initial state', async () => {
    const h = harness(['active', 'active', 'completed']);
    const rec = recording();
    const r = await waitJob({ api: h.api, projectId: 'p', record: rec.record }, 'job_1', {
      intervalMs: 10,
      timeoutMs: 10_000,
      initial: active,
      prompt: 'Document it',
      now: h.base.now!,
      sleep: h.base.sleep!,
    });
    expect(r.outcome).toBe('finished');
    expect(rec.rows.map((s) => [s.jobId, s.job.status, s.job.prLink, s.prompt])).toEqual([
      ['job_1', 'completed', 'https://github.com/o/r/pull/7', 'Document it'],
    ]);
    expect(rec.rows[0]?.seenAt).toBe(START + 10 + 15 + 22.5);
  });

  it('records the last state seen on a timeout so that last_seen_at is current', async () => {
    const h = harness(['active']);
    const rec = recording();
    const r = await waitJob({ api: h.api, projectId: 'p', record: rec.record }, 'job_1', {
      intervalMs: 100,
      timeoutMs: 1000,
      initial: active,
      now: h.base.now!,
      sleep: h.base.sleep!,
    });
    expect(r.outcome).toBe('timeout');
    expect(rec.rows).toHaveLength(1);
    expect(rec.rows[0]?.job.status).toBe('active');
    expect(rec.rows[0]?.prompt).toBeUndefined();
    expect(rec.rows[0]?.seenAt).toBe(START + h.polls.at(-1)!);
  });

  it('records the first answer of a wait on a job it had not seen', async () => {
    const h = harness(['completed']);
    const rec = recording();
    await waitJob({ api: h.api, projectId: 'p', record: rec.record }, 'job_1', {
      intervalMs: 100,
      timeoutMs: 1000,
      now: h.base.now!,
      sleep: h.base.sleep!,
    });
    expect(rec.rows.map((s) => s.job.status)).toEqual(['completed']);
  });

  it('turns a budget wait longer than allowed into an agent error with exit code 4', async () => {
    const api: AgentApi = {
      getAgentJob: () => Promise.reject(new RateLimitError('the API asked us to pause (429)', 3_600_000)),
      createAgentJob: () => Promise.reject(new Error('unused')),
      sendAgentMessage: () => Promise.reject(new Error('unused')),
    };
    const err = await waitJob({ api, projectId: 'p', record: () => Promise.resolve() }, 'job_9', {
      intervalMs: 10,
      timeoutMs: 100,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentRateLimitError);
    expect((err as AgentRateLimitError).exitCode).toBe(AGENT_EXIT.notDone);
    expect((err as Error).message).toBe('stopped waiting for job job_9: the API asked us to pause (429)');
  });
});
