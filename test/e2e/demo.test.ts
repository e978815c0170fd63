import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
    // The event stream's folder is temporary: no path that is gone when the demo ends is printed.
    expect(r.stderr).toMatch(
      /wrote an Enterprise event stream of \d+ objects \(\d+ events\) to a temporary folder/,
    );
    expect(r.stderr + r.stdout).not.toContain('mintlify-etl-demo-events-');
    // Multi-line text is printed as lines, never as a literal \n (issue 27, item 17).
    expect(r.stderr).not.toContain('\\n');
    expect(r.stdout).toContain('Unique visitors per day');
    expect(r.stdout).toContain('Top pages, last 7 days');
    expect(r.stdout).toContain(`report --db ${db} --html`);
    const [row] = await readRows<{ days: bigint; runs: bigint }>(
      db,
      "SELECT (SELECT count(*) FROM site_daily) AS days, (SELECT count(*) FROM sync_runs WHERE status = 'succeeded') AS runs",
    );
    expect(Number(row?.days)).toBe(14);
    // The sync, and the assistant weeks read again after the demo's fix of a content gap.
    expect(Number(row?.runs)).toBe(2);
    expect(r.stdout).toMatch(/Content gap: ".+" went unanswered \d+ times/);
    expect(r.stdout).toMatch(/Its effect: .+: (improved|same|worse|too little data)\./);
  });
});

/** The commands under "Next, try:", each without its trailing comment. */
function nextCommands(stdout: string): string[] {
  const tail = stdout.slice(stdout.indexOf('Next, try:\n') + 'Next, try:\n'.length);
  return tail
    .split('\n')
    .filter((l) => l.startsWith('  '))
    .map((l) => l.replace(/\s+#.*$/, '').trim());
}

describe('the commands demo suggests', () => {
  it('work as printed from another folder than the one the demo ran in', async () => {
    const here = mkdtempSync(join(tmpdir(), 'mintlify-etl-demo-here-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'mintlify-etl-demo-elsewhere-'));
    // The default --db (data/demo.duckdb) is relative: the trap a printed command must avoid.
    const demo = await runCli(['demo', '--days', '7'], {}, { cwd: here });
    expect(demo.code).toBe(0);
    const commands = nextCommands(demo.stdout).filter((c) => !/ emulator( |$)/.test(c));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const r = await promisify(execFile)('sh', ['-c', command], {
        cwd: elsewhere,
        env: { PATH: process.env['PATH'] ?? '', CI: '1' },
      }).catch((e: Error & { stderr?: string; code?: number }) => e);
      expect(r instanceof Error ? `${command}\n -> ${r.stderr ?? r.message}` : '').toBe('');
    }
    expect(existsSync(join(here, 'data', 'report.html'))).toBe(true);
  });
});
