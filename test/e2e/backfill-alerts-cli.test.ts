import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { dayRange } from '../../src/util/day.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Issue 27 item 14 as cron runs it: `alerts` after a first budget-limited sync sends one pipeline
 * alert for the backfill (not one per stream), and the next night, the backfill further along,
 * sends nothing again.
 */
const STREAMS = ['visitors', 'views', 'searches', 'feedback', 'assistant', 'caller_stats'];
let dir: string;
let cleanup: () => void;
let db: string;

/** One night's run: the day ranges it loaded, and the days [deferredFrom, deferredTo) it deferred. */
async function night(loaded: [string, string][], run: string, deferredFrom: string, deferredTo: string) {
  const conn = await openDatabase(db);
  const fx = new AlertsFixture(conn.connection);
  for (const [from, to] of loaded) {
    await fx.visitors('docs', from, to, '100');
    for (const s of ['views', 'searches', 'caller_stats']) await fx.dayWindows('docs', s, from, to);
    for (const s of ['feedback', 'assistant']) await fx.window('docs', s, from, to);
  }
  const deferredDays = STREAMS.flatMap((s) =>
    dayRange(deferredFrom, deferredTo).map((d) => (s === 'visitors' ? `docs:${d}` : `docs:${s}:${d}`)),
  );
  await fx.syncRun('docs', run, { status: 'incomplete', deferred: deferredDays.length, deferredDays });
  conn.close();
}

beforeAll(() => {
  ({ dir, cleanup } = tempDir('mlx-backfill-cli-'));
  db = join(dir, 'b.duckdb');
});

afterAll(() => cleanup());

describe('alerts during a backfill, as a process', () => {
  it('sends one backfill alert after the first sync, and nothing the next night', async () => {
    await night([['2026-02-21', '2026-03-02']], '2026-03-02', '2026-01-31', '2026-02-21');
    const first = await runCli(['alerts', '--db', db], { MINTLIFY_ETL_NOW: '2026-03-02T06:00:00Z' });
    expect(first.code).toBe(6);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^docs 2026-03-01 pipeline al_[0-9a-f]{12} backfill in progress, as planned: 9 of the 30 days from 2026-01-31 to 2026-03-01 loaded, 21 left/,
    );
    const loaded: [string, string][] = [
      ['2026-02-11', '2026-02-21'],
      ['2026-03-02', '2026-03-03'],
    ];
    await night(loaded, '2026-03-03', '2026-01-31', '2026-02-11');
    const next = await runCli(['alerts', '--db', db], { MINTLIFY_ETL_NOW: '2026-03-03T06:00:00Z' });
    expect(next.stdout).toBe('');
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('1 alert(s) already sent by an earlier run, not sent again');
  });
});
