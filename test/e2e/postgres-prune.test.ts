import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { pgWithEmulator } from '../helpers/pg-e2e.js';
import { hasPostgres } from '../helpers/postgres.js';

/*
 * prune on the PostgreSQL destination: what it removes is gone from the data and the ledger, what
 * it keeps is untouched, and a window that straddles the day (February's feedback month) is
 * fetched again by the next sync, so nothing stays "loaded" with rows missing.
 */
const TODAY = '2026-03-10';
const AFTER = '2026-02-20';

describe.skipIf(!hasPostgres())('prune on PostgreSQL', () => {
  const h = pgWithEmulator({ seed: 12, days: 40, paths: 30, latencyMs: 0, today: TODAY });

  const env = (): Record<string, string> => ({
    MINTLIFY_API_URL: h.emu.url,
    MINTLIFY_API_KEY: h.emu.apiKey,
    MINTLIFY_PROJECT_ID: h.emu.projectId,
    MINTLIFY_ETL_STREAMS: 'visitors,feedback',
    MINTLIFY_ETL_NOW: `${TODAY}T06:00:00Z`,
  });
  const sync = (): Promise<unknown> =>
    runCli(
      ['sync', '--db', h.server.url, '--schema', 'pr', '--from', '2026-02-01', '--rate-limit', '100000/1h'],
      env(),
    );

  async function count(sql: string): Promise<number> {
    return Number((await h.admin.query<{ n: string }>(sql)).rows[0]?.n);
  }
  const snapshot = async (): Promise<number[]> => [
    await count(`SELECT count(*) AS n FROM pr.site_daily`),
    await count(`SELECT count(*) AS n FROM pr.page_daily`),
    await count(`SELECT count(*) AS n FROM pr.feedback`),
  ];

  it('removes rows and ledger rows after the day in one go, keeps the rest, and the next sync restores them', async () => {
    await sync();
    const full = await snapshot();
    const kept = [
      await count(`SELECT count(*) AS n FROM pr.site_daily WHERE day <= DATE '${AFTER}'`),
      await count(
        `SELECT count(*) AS n FROM pr.feedback WHERE created_at IS NULL OR created_at < TIMESTAMPTZ '${AFTER}T00:00:00Z' + INTERVAL '1 day'`,
      ),
    ];
    expect(full[0]).toBeGreaterThan(kept[0]!);
    expect(full[2]).toBeGreaterThan(kept[1]!);

    const dry = await runCli(['prune', '--db', h.server.url, '--schema', 'pr', '--after', AFTER], env());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/would remove .*site_daily \d+.*add --yes/);
    expect(await snapshot()).toEqual(full);

    const done = await runCli(
      ['prune', '--db', h.server.url, '--schema', 'pr', '--after', AFTER, '--yes'],
      env(),
    );
    expect(done.code, done.stderr).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM pr.site_daily`)).toBe(kept[0]);
    expect(await count(`SELECT count(*) AS n FROM pr.feedback`)).toBe(kept[1]);
    // No window reaching past the day is left "loaded": February's month straddles it.
    expect(
      await count(`SELECT count(*) AS n FROM pr.sync_windows WHERE window_end > DATE '${AFTER}' + 1`),
    ).toBe(0);

    await sync();
    expect(await snapshot()).toEqual(full);
  }, 180_000);
});
