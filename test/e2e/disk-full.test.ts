import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * A disk that fills up during a sync is the machine's state, not a window's fault: the run stops
 * at the first write the disk refuses, keeps what it committed, defers the rest, and says so in
 * one line naming the place, instead of one DuckDB message per window and an internal error.
 * A real full disk: a 3 MiB tmpfs, which only root may mount (CI runs as root).
 */
const canMount = process.getuid?.() === 0;
const tmp = tempDir('mintlify-etl-disk-full-');
const disk = join(tmp.dir, 'small-disk');
let mounted = false;
let emu: Emulator;

beforeAll(async () => {
  if (!canMount) return;
  mkdirSync(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', disk]);
  mounted = true;
  emu = await startEmulator({ seed: 3, days: 40, paths: 600, latencyMs: 0, today: '2026-05-20' });
});

afterAll(async () => {
  await emu?.close();
  if (mounted) execFileSync('umount', ['-l', disk]);
  tmp.cleanup();
});

describe.skipIf(!canMount)('sync onto a disk that fills up', () => {
  it('stops at the first refused write with one line naming the disk, exit 4, windows deferred not failed', async () => {
    const db = join(disk, 'a.duckdb');
    const r = await runCli(['sync', '--db', db, '--rate-limit', '100000/1h', '--json'], {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_NOW: '2026-05-20T12:00:00Z',
    });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code, r.stderr).toBe(4);
    const full = r.stderr.split('\n').filter((l) => /no space left/i.test(l));
    // One line, naming the folder and what to do; no DuckDB message per window.
    expect(full.length, r.stderr).toBe(1);
    expect(full[0]).toContain(disk);
    expect(full[0]).toMatch(/free some space|another disk/);
    expect(r.stderr).not.toMatch(/the day is unchanged/);
    const summary = JSON.parse(r.stdout) as { windows: { failed: number; deferred: number; loaded: number } };
    expect(summary.windows.failed).toBe(0);
    expect(summary.windows.deferred).toBeGreaterThan(0);
  });
});
