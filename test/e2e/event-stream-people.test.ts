import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import type { ReportData } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { HASH_KEY, LEDGER_SQL, SECTION_EVENTS, insertEventsSql } from '../helpers/analytics-events-rows.js';
import { buildReportFixture, FIXTURE_PROJECT } from '../helpers/report-fixture.js';

/*
 * report, digest and export of the event stream as a user runs them: the built CLI over a
 * database with visitors and events (SECTION_EVENTS moved to end on the fixture's last days), and
 * over the same fixture without events.
 */

const tmp = tempDir('mintlify-etl-event-people-');
afterAll(() => tmp.cleanup());
let withEvents = '';
let without = '';

beforeAll(async () => {
  withEvents = join(tmp.dir, 'events.duckdb');
  without = join(tmp.dir, 'none.duckdb');
  await buildReportFixture(withEvents, {});
  await buildReportFixture(without, {});
  const db = await openDatabase(withEvents);
  try {
    const moved = SECTION_EVENTS.map((e) => ({
      ...e,
      project: FIXTURE_PROJECT,
      at: new Date(Date.parse(e.at) - 26 * 86_400_000).toISOString(),
    }));
    await db.connection.run(insertEventsSql(moved));
    for (const sql of LEDGER_SQL) await db.connection.run(sql);
  } finally {
    db.close();
  }
}, 120_000);

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

describe('the event stream for people, through the CLI', () => {
  it('report prints the Event stream tables, and --json has the true uniques of 7 and 28 days', async () => {
    const text = await runCli(['report', '--db', withEvents], { NO_COLOR: '1', COLUMNS: '120' });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Event stream: unique visitors');
    expect(text.stdout).toContain('Event stream: search and assistant');
    const json = await runCli(['report', '--db', withEvents, '--json']);
    const data = JSON.parse(json.stdout) as ReportData;
    expect(data.projects[0]?.eventStream?.visitors.map((v) => [v.days, v.human, v.ai, v.total])).toEqual([
      [7, 2, 1, 3],
      [28, 3, 2, 4],
    ]);
  });

  it('report and digest have no Event stream section without events', async () => {
    const text = await runCli(['report', '--db', without], { NO_COLOR: '1' });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('Event stream');
    const digest = await runCli(['digest', '--db', without, '--week', '2026-W09']);
    expect(digest.code, digest.stderr).toBe(0);
    expect(digest.stdout).not.toContain('Event stream');
  });

  it('digest adds the Event stream section in Markdown and HTML', async () => {
    const md = await runCli(['digest', '--db', withEvents, '--week', '2026-W09']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('*Event stream*');
    expect(md.stdout).toContain('• Unique visitors 2026-02-23 to 2026-03-01: ');
    const html = await runCli(['digest', '--db', withEvents, '--week', '2026-W09', '--format', 'html']);
    expect(html.stdout).toContain('>Event stream</h2>');
  });

  it('export writes analytics_events by day, personal columns only with --include-personal-data, never the hash key', async () => {
    const out = join(tmp.dir, 'out');
    const r = await runCli(['export', '--db', withEvents, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { skippedColumns: { table: string; columns: string[] }[] };
    expect(summary.skippedColumns).toContainEqual({
      table: 'analytics_events',
      columns: ['anon_id', 'session_id', 'user_id', 'properties'],
      reason: 'personal',
    });
    const files = filesUnder(join(out, 'analytics_events'));
    expect(files[0]).toMatch(
      /^project_id=docs-main\/year=2026\/month=02\/day=2026-02-\d\d\/data_0\.parquet$/,
    );
    expect(readdirSync(out)).not.toContain('event_hash_key');
    expect(readdirSync(out)).not.toContain('event_objects');
    const text = await runCli(['export', '--db', withEvents, '--out', out, '--include-personal-data']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("the event stream's anon_id, session_id, user_id and properties");
    expect(text.stdout + text.stderr).not.toContain(HASH_KEY);
  });
});
