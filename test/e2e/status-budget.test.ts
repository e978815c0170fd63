import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { runCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';

let db: string;

/** 151 requests in the ledger within the last ten minutes, as a run with --rate-limit 1000/1h leaves. */
beforeAll(async () => {
  db = tempDbPath();
  const handle = await openDatabase(db);
  try {
    await handle.connection.run(
      `INSERT INTO api_requests (requested_at, seq, endpoint, project_id, status, duration_ms, run_id) SELECT now() - INTERVAL 10 MINUTE + i * INTERVAL 1 SECOND, i, 'visitors', 'docs', 200, 0, 'r1' FROM range(151) t(i)`,
    );
  } finally {
    handle.close();
  }
});

describe('status after runs with a larger --rate-limit than the one it judges by', () => {
  it('says the requests exceed the default limit instead of printing 151/100 spent', async () => {
    const r = await runCli(['status', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/151\/100/);
    expect(r.stdout).toMatch(
      /budget: 151 requests in the last hour, over the 100\/1h default: runs with a larger --rate-limit spent them \(pass it to status to judge by it\); under 100\/1h the next slot frees at (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/,
    );
  });

  it('says so for a --rate-limit given to status too', async () => {
    const r = await runCli(['status', '--db', db, '--rate-limit', '50/1h']);
    expect(r.stdout).toMatch(/budget: 151 requests in the last hour, over the --rate-limit 50\/1h: /);
  });

  it('shows spent/limit as before when the ledger is within the limit', async () => {
    const r = await runCli(['status', '--db', db, '--rate-limit', '1000/1h']);
    expect(r.stdout).toMatch(/budget: 151\/1000 spent in the last hour, 849 free now/);
  });

  it('--json marks the budget as over its limit and says which limit it is', async () => {
    const r = await runCli(['status', '--db', db, '--json']);
    const s = JSON.parse(r.stdout) as { budget: Record<string, unknown> };
    expect(s.budget).toMatchObject({
      rateLimit: '100/1h',
      limitSource: 'default',
      spent: 151,
      remaining: 0,
      overLimit: true,
    });
  });
});
