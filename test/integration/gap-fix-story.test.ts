import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixJob } from '../../src/agent/fix.js';
import { openAgentApi, waitJob, type JobContext } from '../../src/agent/jobs.js';
import { JobRecorder } from '../../src/agent/store.js';
import { validateApiKey } from '../../src/api/key.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { buildFixPrompt } from '../../src/insights/fix-prompt.js';
import { readGaps, type Gap } from '../../src/insights/gaps.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { runSync } from '../../src/pipeline/sync.js';
import { streamByName } from '../../src/streams/index.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';

/*
 * The loop end to end, on fixed clocks: the emulator's data ends on 2026-03-01; the gaps of the 28
 * days before 2026-02-10; an agent job for the most asked unanswered question, created and
 * completed on 2026-02-10 (the agent's clock); the assistant weeks read again; the fix measured.
 */
const NOW = Date.parse('2026-03-01T06:00:00Z');
const FIX_AT = Date.parse('2026-02-10T12:00:00Z');
let emu: Emulator;
let dbPath: string;
let cleanup: () => void;
let fixed: Gap;

async function rows(sql: string): Promise<Row[]> {
  const db = await openDatabase(dbPath, { readOnly: true });
  try {
    return await queryRows(db.connection, sql);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const t = tempDir('mlx-story-');
  cleanup = t.cleanup;
  dbPath = join(t.dir, 's.duckdb');
  emu = await startEmulator({
    seed: 8,
    days: 70,
    paths: 60,
    today: '2026-03-01',
    pollsToFinish: 1,
    agentClock: () => FIX_AT,
  });
  const sync = (over: { refresh?: boolean; from: string }) =>
    runSync(
      emulatorSyncOptions(emu, dbPath, { streams: [streamByName('assistant')], now: () => NOW, ...over }),
    );
  await sync({ from: '2026-01-01' });

  const db = await openDatabase(dbPath, { readOnly: true });
  try {
    const gaps = await readGaps(duckSession(db.connection), {
      days: 28,
      to: '2026-02-10',
      projectId: emu.projectId,
    });
    fixed = gaps.find((g) => g.kind === 'unanswered') as Gap;
  } finally {
    db.close();
  }
  const { api, close } = openAgentApi({
    baseUrl: emu.url,
    apiKey: validateApiKey(emu.apiKey, 'test key'),
    rateLimit: parseRateLimit('100/1h'),
  });
  const recorder = new JobRecorder({ dbPath, logger: silentLogger });
  const ctx: JobContext = {
    api,
    projectId: emu.projectId,
    record: (s) => recorder.record(s),
    now: () => FIX_AT,
  };
  try {
    const prompt = buildFixPrompt([fixed]);
    const job = await createFixJob(ctx, (l) => recorder.linkGaps(l), [fixed], prompt);
    await waitJob(ctx, job.id, { intervalMs: 10, timeoutMs: 60_000, initial: job, prompt });
  } finally {
    await close();
  }
  await sync({ from: '2026-02-02', refresh: true });
}, 120_000);

afterAll(async () => {
  await emu?.close();
  cleanup?.();
});

describe('a content gap, its fix and the effect', () => {
  it('links the gap to the job, which completed with a pull request on the agent clock', async () => {
    expect(fixed.currentCount).toBeGreaterThanOrEqual(2);
    const linked = await rows(
      `SELECT g.gap_id, j.status, j.pr_link IS NOT NULL AS has_pr, j.completed_at
       FROM agent_job_gaps g JOIN agent_jobs j USING (project_id, job_id)`,
    );
    expect(linked).toEqual([
      { gap_id: fixed.gapId, status: 'completed', has_pr: true, completed_at: '2026-02-10T12:00:00.000Z' },
    ]);
  });

  it('shows the question answered from the day after the fix, and the gap improved', async () => {
    const [o] = await rows(`SELECT * FROM v_gap_outcomes WHERE gap_id = '${fixed.gapId}'`);
    expect(o).toMatchObject({ verdict: 'improved', days_before: 14, days_after: 14, measure_after: 0 });
    expect(o?.['measure_before'] as number).toBeGreaterThan(0);
  });

  it('no longer lists the question as a gap of the 14 days after the fix', async () => {
    const db = await openDatabase(dbPath, { readOnly: true });
    try {
      const after = await readGaps(duckSession(db.connection), {
        days: 14,
        to: '2026-02-25',
        projectId: emu.projectId,
      });
      expect(after.map((g) => g.gapId)).not.toContain(fixed.gapId);
    } finally {
      db.close();
    }
  });
});
