import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';

describe('mintlify-etl demo as a process', () => {
  it('syncs the asked days from the in-process emulator, prints the report and the next commands', async () => {
    const db = tempDbPath('demo.duckdb');
    const r = await runCli(['demo', '--db', db, '--days', '14']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /synced 14 days of visitors, views, searches, feedback, assistant, caller_stats, assistant_threads, visitors_weekly, visitors_monthly \(\d+ windows, \d+ rows\) with \d+ requests/,
    );
    expect(r.stdout).toContain('Unique visitors per day');
    expect(r.stdout).toContain('Top pages, last 7 days');
    expect(r.stdout).toContain(`report --db ${db} --html`);
    const [row] = await readRows<{ days: bigint; runs: bigint }>(
      db,
      "SELECT (SELECT count(*) FROM site_daily) AS days, (SELECT count(*) FROM sync_runs WHERE status = 'succeeded') AS runs",
    );
    expect(Number(row?.days)).toBe(14);
    expect(Number(row?.runs)).toBe(1);
  });
});
