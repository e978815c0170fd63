import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JobNotFoundError,
  createJob,
  getJob,
  messageJob,
  openAgentApi,
  waitJob,
  type AgentApi,
  type JobContext,
} from '../../src/agent/jobs.js';
import { JobRecorder, readAgentJob, upsertAgentJob, type AgentJobRow } from '../../src/agent/store.js';
import { ApiKey } from '../../src/api/key.js';
import type { Sleep } from '../../src/api/retry.js';
import { AGENT_MODEL, AGENT_REPOSITORY, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { DatabaseInUseError } from '../../src/errors.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';
import { duckdbChild, tempDir, type NodeChild } from '../helpers/duckdb-temp.js';

let emu: Emulator;
let api: AgentApi;
let closeApi: () => Promise<void>;
let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  emu = await startEmulator({ pollsToFinish: 3 });
  ({ api, close: closeApi } = openAgentApi({
    baseUrl: emu.url,
    apiKey: new ApiKey(emu.apiKey),
    rateLimit: parseRateLimit('100/1h'),
  }));
  ({ dir, cleanup } = tempDir());
});
afterAll(async () => {
  await closeApi();
  await emu.close();
  cleanup();
});

let n = 0;
/** Jobs have unique ids, so tests share one file (creating and migrating a file costs more than a test). */
function context(fresh = false): { ctx: JobContext; recorder: JobRecorder; dbPath: string } {
  const dbPath = join(dir, fresh ? `agent-${++n}.duckdb` : 'agent.duckdb');
  const recorder = new JobRecorder({ dbPath, logger: silentLogger });
  return { ctx: { api, projectId: emu.projectId, record: (s) => recorder.record(s) }, recorder, dbPath };
}

async function row(dbPath: string, jobId: string): Promise<AgentJobRow | undefined> {
  const db = await openDatabase(dbPath, { readOnly: true });
  try {
    return await readAgentJob(duckSession(db.connection), emu.projectId, jobId);
  } finally {
    db.close();
  }
}

const fast = { intervalMs: 20, timeoutMs: 10_000 };

describe('agent jobs against the emulator, recorded in a real DuckDB file', () => {
  it('creates a job, waits for it and records it completed with its pull-request link', async () => {
    const { ctx, dbPath, recorder } = context();
    const created = await createJob(ctx, 'Document the webhooks');
    expect(created.status).toBe('active');
    const before = await row(dbPath, created.id);
    expect(before).toMatchObject({ status: 'active', prompt: 'Document the webhooks', pr_link: null });

    const r = await waitJob(ctx, created.id, { ...fast, initial: created, prompt: 'Document the webhooks' });
    expect(r.outcome).toBe('finished');
    expect(r.polls).toBe(3);
    expect(r.job?.status).toBe('completed');
    expect(r.job?.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);

    const after = await row(dbPath, created.id);
    expect(after).toMatchObject({
      project_id: emu.projectId,
      job_id: created.id,
      status: 'completed',
      prompt: 'Document the webhooks',
      repository: AGENT_REPOSITORY,
      ref: 'main',
      model: AGENT_MODEL,
      pr_link: r.job?.prLink,
      created_at: created.createdAt,
      archived_at: null,
    });
    expect(Date.parse(after!.last_seen_at)).toBeGreaterThan(Date.parse(before!.last_seen_at));
    expect(recorder.failure).toBeUndefined();
  });

  it('records a completed job that changed no files with a null pr_link', async () => {
    const { ctx, dbPath } = context();
    const created = await createJob(ctx, 'Check spelling, expect no changes');
    const r = await waitJob(ctx, created.id, { ...fast, initial: created });
    expect(r.job).toMatchObject({ status: 'completed', prLink: null });
    expect(await row(dbPath, created.id)).toMatchObject({
      status: 'completed',
      pr_link: null,
      prompt: 'Check spelling, expect no changes',
    });
  });

  it('records a failed job as failed', async () => {
    const { ctx, dbPath } = context();
    const created = await createJob(ctx, 'This one will fail');
    const r = await waitJob(ctx, created.id, { ...fast, initial: created });
    expect(r.outcome).toBe('finished');
    expect(r.job?.status).toBe('failed');
    expect((await row(dbPath, created.id))?.status).toBe('failed');
  });

  it('records an archived job with its archived_at', async () => {
    const { ctx, dbPath } = context();
    const created = await createJob(ctx, 'Please archive');
    const r = await waitJob(ctx, created.id, { ...fast, initial: created });
    expect(r.job?.status).toBe('archived');
    const stored = await row(dbPath, created.id);
    expect(stored?.status).toBe('archived');
    expect(stored?.archived_at).toBe(r.job?.archivedAt);
  });

  it('a follow-up message makes the job active again, then it completes; the row carries the new prompt', async () => {
    const { ctx, dbPath } = context();
    const created = await createJob(ctx, 'Document the SDK');
    const first = await waitJob(ctx, created.id, { ...fast, initial: created });
    const pr = first.job?.prLink;
    expect(pr).toMatch(/\/pull\/\d+$/);

    const sent = await messageJob(ctx, created.id, 'Also add examples');
    expect(sent).toMatchObject({ id: created.id, status: 'active', prLink: null });
    expect(await row(dbPath, created.id)).toMatchObject({
      status: 'active',
      prompt: 'Also add examples',
      pr_link: null,
      created_at: created.createdAt,
    });

    const second = await waitJob(ctx, created.id, { ...fast, initial: sent, prompt: 'Also add examples' });
    expect(second.job).toMatchObject({ status: 'completed', prLink: pr });
    expect(await row(dbPath, created.id)).toMatchObject({
      status: 'completed',
      pr_link: pr,
      prompt: 'Also add examples',
    });
  });

  it('get records a job first seen here, keeping the prompt a create stored earlier', async () => {
    const a = context();
    const created = await createJob(a.ctx, 'Rewrite the quickstart');
    const seen = await getJob(a.ctx, created.id);
    expect(seen.id).toBe(created.id);
    expect((await row(a.dbPath, created.id))?.prompt).toBe('Rewrite the quickstart');

    const b = context(true);
    await getJob(b.ctx, created.id);
    expect(await row(b.dbPath, created.id)).toMatchObject({
      status: 'active',
      prompt: null,
      job_id: created.id,
    });
  });

  it('refuses an unknown job id with "job X not found in project Y" and writes nothing', async () => {
    const { ctx, dbPath } = context(true);
    const err = await getJob(ctx, 'job_doesnotexist').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobNotFoundError);
    expect((err as JobNotFoundError).exitCode).toBe(2);
    expect((err as Error).message).toBe(`job job_doesnotexist not found in project ${emu.projectId}`);
    await expect(messageJob(ctx, 'job_doesnotexist', 'hi')).rejects.toThrow(/not found in project/);
    await expect(waitJob(ctx, 'job_doesnotexist', fast)).rejects.toThrow(/not found in project/);
    await expect(openDatabase(dbPath, { readOnly: true })).rejects.toThrow(/no database/);
  });

  it('names the project when the service does not know it', async () => {
    const { ctx } = context();
    const err = await createJob({ ...ctx, projectId: 'proj_nope' }, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobNotFoundError);
    expect((err as Error).message).toMatch(/^project proj_nope not found \(404\)/);
  });
});

describe('agent_jobs upsert', () => {
  it('keeps columns an answer leaves out, and overwrites those it sets to null', async () => {
    const dbPath = join(dir, 'upsert.duckdb');
    const db = await openDatabase(dbPath);
    try {
      const base = { projectId: 'p', jobId: 'j1' };
      await upsertAgentJob(duckSession(db.connection), {
        ...base,
        prompt: 'first',
        seenAt: Date.parse('2026-01-01T00:00:00Z'),
        job: {
          id: 'j1',
          status: 'completed',
          source: { repository: 'https://github.com/o/r', ref: 'main' },
          model: 'sonnet',
          prLink: 'https://github.com/o/r/pull/1',
          createdAt: '2025-12-31T23:00:00Z',
          archivedAt: null,
        },
      });
      await upsertAgentJob(duckSession(db.connection), {
        ...base,
        seenAt: Date.parse('2026-01-01T00:05:00Z'),
        job: { id: 'j1', status: 'active', prLink: null, createdAt: 'not a date' },
      });
      expect(await readAgentJob(duckSession(db.connection), 'p', 'j1')).toEqual({
        project_id: 'p',
        job_id: 'j1',
        status: 'active',
        prompt: 'first',
        repository: 'https://github.com/o/r',
        ref: 'main',
        model: 'sonnet',
        pr_link: null,
        created_at: '2025-12-31T23:00:00.000Z',
        archived_at: null,
        last_seen_at: '2026-01-01T00:05:00.000Z',
        // The first answer that showed it completed; a later active answer keeps it.
        completed_at: '2026-01-01T00:00:00.000Z',
      });
    } finally {
      db.close();
    }
  });
});

describe('the database is held only for each write', () => {
  let child: NodeChild;
  async function ask(cmd: Record<string, unknown>): Promise<string> {
    child.send(JSON.stringify(cmd));
    return child.nextLine();
  }
  beforeAll(async () => {
    child = duckdbChild();
    expect(await child.nextLine()).toBe('ready');
  });
  afterAll(async () => {
    await child.kill();
  });

  it('leaves the file free while it sleeps between polls', async () => {
    const { ctx, dbPath } = context();
    const created = await createJob(ctx, 'Document the CLI');
    const opens: string[] = [];
    let sleeps = 0;
    // The wait's clock moves only when it sleeps: a poll that takes longer than the interval on a
    // busy machine cannot make it skip the sleep this test needs.
    let clock = Date.parse('2026-05-20T12:00:00Z');
    const sleep: Sleep = async (ms) => {
      if (++sleeps === 2) {
        // Another process takes the file read-write in the middle of the wait.
        opens.push(await ask({ open: dbPath }));
        await ask({ close: true });
      }
      clock += ms;
    };
    const r = await waitJob(ctx, created.id, { ...fast, initial: created, sleep, now: () => clock });
    expect(opens).toEqual(['opened']);
    expect(r.job?.status).toBe('completed');
    expect((await row(dbPath, created.id))?.status).toBe('completed');
  });

  it('goes on when the file is held by another process, and keeps the failure for the exit code', async () => {
    const dbPath = join(dir, 'held.duckdb');
    const recorder = new JobRecorder({ dbPath, logger: silentLogger, open: { busyTimeoutMs: 200 } });
    const ctx: JobContext = { api, projectId: emu.projectId, record: (s) => recorder.record(s) };
    expect(await ask({ open: dbPath })).toBe('opened');
    let created;
    try {
      created = await createJob(ctx, 'Document the CLI');
      expect(created.id).toMatch(/^job_/);
      expect(recorder.failure).toBeInstanceOf(DatabaseInUseError);
      expect(recorder.failure?.exitCode).toBe(5);
    } finally {
      await ask({ close: true });
    }
    // The next write carries the job's whole state, so once it succeeds nothing is missing.
    await getJob(ctx, created.id);
    expect(recorder.failure).toBeUndefined();
    expect((await row(dbPath, created.id))?.status).toBe('active');
  });
});
