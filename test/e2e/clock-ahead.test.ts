import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/database.js';
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
