import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';

/**
 * Feedback months are read again for --feedback-lookback days (30 by default) after they end:
 * February 2026 ends at 03-01T00:00, so a fetch before 03-31T00:00 is not final and one at that
 * instant is. The service and the CLI both take a fixed "today" (MINTLIFY_ETL_NOW), so this
 * means the same on every day the suite runs.
 */

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 11, days: 70, paths: 40, today: '2026-04-02' });
});
afterAll(async () => {
  await emu.close();
});

const env = (now: string): Record<string, string> => ({
  MINTLIFY_API_URL: emu.url,
  MINTLIFY_API_KEY: emu.apiKey,
  MINTLIFY_PROJECT_ID: emu.projectId,
  MINTLIFY_ETL_STREAMS: 'feedback',
  MINTLIFY_ETL_NOW: now,
});

const FEBRUARY = ['--from', '2026-02-01', '--to', '2026-03-01'];

interface DryRun {
  plan: { days: { day: string; dateTo: string }[]; skipped: { day: string; reason: string }[] };
}

/** Loads February's feedback; returns the requests it took. */
async function syncFebruary(db: string, now: string): Promise<number> {
  const r = await runCli(['sync', '--db', db, ...FEBRUARY, '--json'], env(now));
  expect(r.code, r.stderr).toBe(0);
  const summary = JSON.parse(r.stdout) as { status: string; windows: { loaded: number }; requests: number };
  expect(summary).toMatchObject({ status: 'succeeded', windows: { loaded: 1 } });
  return summary.requests;
}

async function planFebruary(db: string, now: string, extra: string[] = []): Promise<DryRun['plan']> {
  const r = await runCli(['sync', '--db', db, ...FEBRUARY, '--dry-run', '--json', ...extra], env(now));
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as DryRun).plan;
}

describe('sync --feedback-lookback as a process, at a fixed clock (MINTLIFY_ETL_NOW)', () => {
  it('reads a month fetched 29 days 23 hours after it ended again, by default and not with 29', async () => {
    const db = tempDbPath();
    await syncFebruary(db, '2026-03-30T23:00:00Z');
    const byDefault = await planFebruary(db, '2026-04-01T12:00:00Z');
    expect(byDefault.days.map((d) => [d.day, d.dateTo])).toEqual([['2026-02-01', '2026-03-01']]);
    const shorter = await planFebruary(db, '2026-04-01T12:00:00Z', ['--feedback-lookback', '29']);
    expect(shorter.days).toEqual([]);
    expect(shorter.skipped.map((s) => [s.day, s.reason])).toEqual([['2026-02-01', 'settled']]);
  });

  it('leaves a month alone once it was fetched 30 days after it ended, unless the flag asks for more', async () => {
    const db = tempDbPath();
    await syncFebruary(db, '2026-03-31T00:00:00Z');
    const byDefault = await planFebruary(db, '2026-04-01T12:00:00Z');
    expect(byDefault.days).toEqual([]);
    expect(byDefault.skipped.map((s) => [s.day, s.reason])).toEqual([['2026-02-01', 'settled']]);
    const longer = await planFebruary(db, '2026-04-01T12:00:00Z', ['--feedback-lookback', '31']);
    expect(longer.days.map((d) => d.day)).toEqual(['2026-02-01']);
  });

  it("records each request at the run's clock, so status counts it for an hour from then", async () => {
    const db = tempDbPath();
    const requests = await syncFebruary(db, '2026-03-30T23:00:00Z');
    const spentAt = async (now: string): Promise<number> => {
      const r = await runCli(['status', '--db', db, '--json'], env(now));
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { budget: { spent: number } }).budget.spent;
    };
    expect(requests).toBeGreaterThan(0);
    expect(await spentAt('2026-03-30T23:30:00Z')).toBe(requests);
    expect(await spentAt('2026-03-31T00:30:00Z')).toBe(0);
  });

  it('refuses a test clock that is not an ISO 8601 instant, with exit 2', async () => {
    const r = await runCli(['sync', '--db', tempDbPath(), '--dry-run'], env('yesterday'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('MINTLIFY_ETL_NOW must be an ISO 8601 instant');
  });
});
