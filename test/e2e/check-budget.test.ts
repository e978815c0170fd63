import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';

let emu: Emulator;
beforeAll(async () => {
  // One page a day, and a server that allows 8 requests an hour: one over is a 429.
  emu = await startEmulator({ seed: 3, days: 20, paths: 50, rateLimit: '8/1h' });
});
afterAll(async () => {
  await emu.close();
});

const env = {
  MINTLIFY_API_URL: '',
  MINTLIFY_API_KEY: '',
  MINTLIFY_PROJECT_ID: '',
  MINTLIFY_ETL_STREAMS: 'visitors',
};

describe('check before the first sync', () => {
  it('creates the database to record its request, and the first sync counts it: no 429 from an 8/h server', async () => {
    const e = {
      ...env,
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
    };
    const db = tempDbPath();
    const check = await runCli(['check', '--db', db, '--rate-limit', '8/1h'], e);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("1 request spent; budget 8/1h: 7 left by this database's ledger");
    expect(check.stdout).toContain(`created ${db} to record them`);
    expect(existsSync(db)).toBe(true);
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM api_requests')).toEqual([{ n: 1 }]);

    const today = todayUtc();
    const sync = await runCli(
      [
        'sync',
        '--db',
        db,
        '--from',
        addDays(today, -8),
        '--rate-limit',
        '8/1h',
        '--max-wait',
        '1s',
        '--json',
      ],
      e,
    );
    const s = JSON.parse(sync.stdout) as {
      requests: number;
      budget: { spentBefore: number };
      windows: { loaded: number; deferred: number };
    };
    expect(s.budget.spentBefore).toBe(1);
    expect(s.requests).toBe(7);
    expect(s.windows).toMatchObject({ loaded: 7, deferred: 1 });
    expect(emu.stats.rateLimited).toBe(0);
    expect(sync.code).toBe(0);
  }, 30_000);

  it('creates nothing when the key is refused (the service counted nothing)', async () => {
    const db = tempDbPath();
    const r = await runCli(['check', '--db', db], {
      ...env,
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: 'mint_wrong_key_0123456789',
      MINTLIFY_PROJECT_ID: emu.projectId,
    });
    expect(r.code).toBe(3);
    expect(existsSync(db)).toBe(false);
  });
});
