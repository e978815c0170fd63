import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-refused-'));
  // The service's hour, three requests long, is spent by another database (another machine).
  emu = await startEmulator({ seed: 8, days: 20, paths: 20, rateLimit: '3/1h' });
});
afterAll(() => emu.close());

describe('a 429 because the hour was spent elsewhere (issue 27, item 15)', () => {
  it('says the service refused with 429, how long to wait, and that the rest is deferred', async () => {
    const env = {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
    };
    const from = addDays(emu.dataset.today, -5);
    const elsewhere = await runCli(
      [
        'sync',
        '--db',
        join(dir, 'other.duckdb'),
        '--streams',
        'visitors',
        '--from',
        from,
        '--max-requests',
        '3',
      ],
      env,
    );
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    const r = await runCli(
      ['sync', '--db', join(dir, 'mine.duckdb'), '--streams', 'visitors', '--from', from, '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/max-duration|max-wait/);
    expect(r.stderr).toMatch(
      /the service refused with 429 .*spent elsewhere.*5 day\(s\) deferred.*try again in up to 1h/,
    );
    const summary = JSON.parse(r.stdout) as { stopReason: string; windows: { deferred: number } };
    expect(summary.stopReason).toBe('rate-limited');
    expect(summary.windows.deferred).toBe(5);
  });
});
