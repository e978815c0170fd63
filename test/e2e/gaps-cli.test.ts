import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { addDays } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * gaps and agent fix as a user runs them: the built CLI against the emulator, on a database
 * synced from it (every default stream, 40 days).
 */
const TODAY = '2026-05-20';
let emu: Emulator;
let dir: string;
let cleanup: () => void;
let env: Record<string, string>;

interface GapJson {
  gapId: string;
  kind: string;
  subject: string;
  fix: { jobId: string; status: string | null } | null;
}

async function gaps(): Promise<GapJson[]> {
  const r = await runCli(['gaps', '--json', '--limit', '50'], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { gaps: GapJson[] }).gaps;
}

async function rows(sql: string): Promise<Row[]> {
  const db = await openDatabase(env['MINTLIFY_ETL_DB'] as string, { readOnly: true });
  try {
    return await queryRows(db.connection, sql);
  } finally {
    db.close();
  }
}

function agentRequests(): number {
  return emu.stats.log.filter((e) => e.path.startsWith('/v2/agent/')).length;
}

beforeAll(async () => {
  const t = tempDir('mlx-gaps-cli-');
  dir = t.dir;
  cleanup = t.cleanup;
  // The service and every command share one fixed "today": the same gaps on every day the suite runs.
  emu = await startEmulator({ seed: 4, days: 40, paths: 80, latencyMs: 0, pollsToFinish: 1, today: TODAY });
  env = {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_DB: join(dir, 'g.duckdb'),
    MINTLIFY_ETL_NOW: `${TODAY}T15:00:00Z`,
  };
  const r = await runCli(['sync', '--from', addDays(TODAY, -35), '--rate-limit', '100000/1h', '-q'], env);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await emu?.close();
  cleanup?.();
});

describe('mintlify-etl gaps', () => {
  it('ranks gaps of more than one kind, each id the same on every run and after another sync', async () => {
    const first = await gaps();
    const kinds = new Set(first.map((g) => g.kind));
    expect(kinds.has('unanswered') && kinds.size >= 2, [...kinds].join()).toBe(true);
    const r = await runCli(['sync', '--rate-limit', '100000/1h', '-q'], env);
    expect(r.code, r.stderr).toBe(0);
    const again = await gaps();
    const id = (gs: GapJson[], subject: string) => gs.find((g) => g.subject === subject)?.gapId;
    for (const g of first.slice(0, 5)) expect(id(again, g.subject)).toBe(g.gapId);
  });

  it('never shows a reader e-mail address, in the text or in --json', async () => {
    const contacts = await rows('SELECT DISTINCT contact FROM feedback WHERE contact IS NOT NULL');
    expect(contacts.length).toBeGreaterThan(0);
    const text = await runCli(['gaps', '--limit', '50'], env);
    const json = await runCli(['gaps', '--json', '--limit', '50'], env);
    for (const { contact } of contacts) {
      expect(text.stdout).not.toContain(contact as string);
      expect(json.stdout).not.toContain(contact as string);
    }
  });
});

describe('mintlify-etl agent fix', () => {
  it('prints the prompt with --dry-run, sends nothing and writes nothing', async () => {
    const [top] = await gaps();
    const before = agentRequests();
    const r = await runCli(['agent', 'fix', top!.gapId, '--dry-run'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(top!.gapId);
    expect(r.stdout).toContain('Asked of you');
    const again = await runCli(['agent', 'fix', top!.gapId, '--dry-run'], env);
    expect(again.stdout).toBe(r.stdout);
    expect(agentRequests()).toBe(before);
    expect(await rows('SELECT * FROM agent_job_gaps')).toEqual([]);
  });

  it('creates one job for the gaps, links them, and says so instead of starting a second while it runs', async () => {
    const [a, b] = (await gaps()).filter((g) => g.kind === 'unanswered');
    const created = await runCli(['agent', 'fix', a!.gapId, b!.gapId], env);
    expect(created.code, created.stderr).toBe(0);
    const jobId = created.stdout.trim();
    expect(jobId).toMatch(/^job_/);
    // The prompt on stderr is printed as lines, never as one line of literal \n (issue 27, item 17).
    expect(created.stderr).not.toContain('\\n');
    expect(created.stderr).toMatch(/\n {2}.*Asked of you/);
    const linked = await rows(
      `SELECT gap_id, kind FROM agent_job_gaps WHERE job_id = '${jobId}' ORDER BY gap_id`,
    );
    expect(linked.map((l) => l['gap_id'])).toEqual([a!.gapId, b!.gapId].sort());

    const creates = agentRequests();
    const second = await runCli(['agent', 'fix', a!.gapId], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`gap ${a!.gapId} already has a job in progress, ${jobId}`);
    expect(agentRequests()).toBe(creates);
    expect((await gaps()).find((g) => g.gapId === a!.gapId)?.fix).toMatchObject({ jobId, status: 'active' });
  });

  it('follows the job with --wait and prints its pull request', async () => {
    const g = (await gaps()).find((x) => x.kind === 'search' || x.kind === 'flagged');
    const r = await runCli(['agent', 'fix', g!.gapId, '--wait', '--interval', '20ms'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    const [job] = await rows(
      `SELECT j.status, j.pr_link, j.completed_at IS NOT NULL AS completed FROM agent_job_gaps g
       JOIN agent_jobs j USING (project_id, job_id) WHERE g.gap_id = '${g!.gapId}'`,
    );
    expect(job).toMatchObject({ status: 'completed', pr_link: r.stdout.trim(), completed: true });
  });

  it('refuses an id that is not a gap, naming it, with exit 2 and no request', async () => {
    const before = agentRequests();
    const bad = await runCli(['agent', 'fix', 'gap_000000000000'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('gap_000000000000: not a content gap');
    const malformed = await runCli(['agent', 'fix', 'nope'], env);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('not a gap id: nope');
    expect(agentRequests()).toBe(before);
  });
});
