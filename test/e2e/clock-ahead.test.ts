import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { runCli } from '../helpers/cli.js';

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-clock-'));
  // The service's date is the emulator's today (its Date header says so), whatever this machine's is.
  emu = await startEmulator({ seed: 9, days: 20, paths: 20, today: '2026-03-10' });
});
afterAll(() => emu.close());

async function maxDay(db: string): Promise<string | null> {
  const h = await openDatabase(db);
  try {
    const r = await h.connection.runAndReadAll(
      `SELECT CAST(max(window_start) AS VARCHAR) AS d FROM sync_windows`,
    );
    return (r.getRowObjects()[0]?.['d'] as string | null) ?? null;
  } finally {
    h.close();
  }
}

describe('a clock far ahead (issue 27, item 5)', () => {
  it('stores no day after the service date, says so in one line, and spends at most the first request', async () => {
    const db = join(dir, 'ahead.duckdb');
    const env = {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_NOW: '2100-01-01T06:00:00Z',
    };
    const sent = emu.stats.requests;
    const r = await runCli(['sync', '--db', db, '--streams', 'visitors'], env);
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.split('\n').filter((l) => /clock/.test(l));
    expect(
      said.filter((l) =>
        /warn: this machine's clock says 2100-01-01 but the service's says 2026-03-10/.test(l),
      ),
    ).toHaveLength(1);
    expect(r.stderr).toMatch(/30 left out \(after the service's date, 2026-03-10/);
    expect(emu.stats.requests - sent).toBe(1);
    expect(await maxDay(db)).toBeNull();
  });
});

describe('days that should not be there (issue 27, item 5)', () => {
  it('sync names them and the command; prune counts them, then removes rows and ledger rows with --yes', async () => {
    const db = join(dir, 'poisoned.duckdb');
    const h = await openDatabase(db);
    const p = emu.projectId;
    await h.connection.run(
      `INSERT INTO site_daily VALUES ('${p}', DATE '2026-03-05', 5, 1, 6, false, TIMESTAMPTZ '2026-03-08 00:00:00+00', 'r0'),
                                     ('${p}', DATE '2099-12-30', 5, 1, 6, false, TIMESTAMPTZ '2100-01-01 00:00:00+00', 'r1'),
                                     ('${p}', DATE '2099-12-31', 5, 1, 6, false, TIMESTAMPTZ '2100-01-01 00:00:00+00', 'r1')`,
    );
    for (const day of ['2026-03-05', '2099-12-30', '2099-12-31'])
      await h.connection.run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated, attempts, fetched_at, run_id)
         VALUES ('${p}', 'visitors', DATE '${day}', DATE '${day}' + 1, 'loaded', 1, 0, false, 1, TIMESTAMPTZ '2100-01-01 00:00:00+00', 'r1')`,
      );
    h.close();
    const env = {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: p,
      MINTLIFY_ETL_NOW: '2026-03-10T06:00:00Z',
    };
    const plan = await runCli(['sync', '--db', db, '--streams', 'visitors', '--dry-run'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(
      /warn: the database holds 2 window\(s\) dated after today \(2026-03-10\), the first 2099-12-30.*mintlify-etl prune --after 2026-03-10 --yes/,
    );
    expect(plan.stdout).not.toMatch(/2099/);

    const dry = await runCli(['prune', '--db', db, '--after', '2026-03-10'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/would remove .*site_daily 2, .*sync_windows 2.*add --yes/);
    expect(await maxDay(db)).toBe('2099-12-31');

    const done = await runCli(['prune', '--db', db, '--after', '2026-03-10', '--yes'], env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/removed .*site_daily 2/);
    expect(await maxDay(db)).toBe('2026-03-05');
    const again = await runCli(['sync', '--db', db, '--streams', 'visitors', '--dry-run'], env);
    expect(again.stderr).not.toMatch(/dated after today/);
  });
});
