import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/model.js';
import { displayWidth } from '../../src/util/width.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import {
  buildEmptyDatabase,
  buildReportFixture,
  FIXTURE_LAST_DAY,
  FIXTURE_PROJECT,
  NASTY_PATH,
  sumSite,
} from '../helpers/report-fixture.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;

describe('mintlify-etl report (the built CLI)', () => {
  const tmp = tempDir('mintlify-etl-report-cli-');
  const db = join(tmp.dir, 'analytics.duckdb');
  const empty = join(tmp.dir, 'empty.duckdb');
  const streams = join(tmp.dir, 'streams.duckdb');
  const prevWeekMissing = join(tmp.dir, 'prev-week-missing.duckdb');
  const everything = join(tmp.dir, 'everything.duckdb');
  beforeAll(async () => {
    await buildReportFixture(everything, {
      partialLast: true,
      feedback: true,
      assistant: true,
      periods: true,
      streams: ['views', 'searches', 'caller_stats'],
    });
    await buildReportFixture(db);
    // Days 46..52 (2026-02-17 to 2026-02-23) are the 7 before the last 7: never loaded.
    await buildReportFixture(prevWeekMissing, { skip: [46, 47, 48, 49, 50, 51, 52] });
    await buildReportFixture(streams, { streams: ['views', 'searches', 'caller_stats'] });
    await buildEmptyDatabase(empty);
  });
  afterAll(() => tmp.cleanup());

  it('exits 2 and says to run sync first when the database does not exist', async () => {
    const r = await runCli(['report', '--db', join(tmp.dir, 'nope.duckdb')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no database at .*nope\.duckdb: run `mintlify-etl sync` first/);
    expect(r.stdout).toBe('');
  });

  it('says "no data loaded yet" for an empty database and exits 0', async () => {
    const r = await runCli(['report', '--db', empty]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No data loaded yet');
    const j = await runCli(['report', '--db', empty, '--json']);
    expect(j.code).toBe(0);
    expect((JSON.parse(j.stdout) as ReportData).projects).toEqual([]);
    expect(j.stderr).toContain('no data loaded yet');
  });

  it('prints the report as aligned text without colour when stdout is not a terminal', async () => {
    const r = await runCli(['report', '--db', db], { MINTLIFY_ETL_DB: '/nonexistent' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).toContain(`Mintlify visitors · project ${FIXTURE_PROJECT}`);
    expect(r.stdout).toContain('Top pages, last 7 days to 2026-03-02, in visitor-days');
    expect(r.stdout).toContain(NASTY_PATH);
    expect(r.stdout).toContain(sumSite('total', 53, 60).toLocaleString('en-US'));
  });

  it('reads the database from MINTLIFY_ETL_DB when --db is not given', async () => {
    const r = await runCli(['report', '--days', '7'], { MINTLIFY_ETL_DB: db });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2026-02-24 to 2026-03-02, 7 days');
  });

  it('prints the data as JSON with --json', async () => {
    const r = await runCli(['report', '--db', db, '--json', '--days', '14', '--project', FIXTURE_PROJECT]);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout) as ReportData;
    expect(data.days).toBe(14);
    expect(data.projects[0]?.window).toMatchObject({ to: FIXTURE_LAST_DAY, days: 14 });
    expect(data.projects[0]?.last7.totalVisitorDays).toBe(sumSite('total', 53, 60));
  });

  it('refuses an unknown project and a bad --days with exit 2, naming what is wrong', async () => {
    const p = await runCli(['report', '--db', db, '--project', 'other-project']);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain(`no data for project "other-project"`);
    expect(p.stderr).toContain(`it holds: ${FIXTURE_PROJECT}`);
    const d = await runCli(['report', '--db', db, '--days', '0']);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('--days "0" must be an integer from 1 to 3660');
  });

  it('writes one HTML page with --html, creating its folder, and still prints the text report', async () => {
    const file = join(tmp.dir, 'reports', 'nested', 'visitors.html');
    const r = await runCli(['report', '--db', db, '--html', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`wrote ${file}`);
    expect(r.stdout).toContain('Unique visitors per day');
    const html = readFileSync(file, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.match(/<figure class="chart"/g)).toHaveLength(4);
    // Each chart twice, drawn for a desktop and for a phone: CSS shows one of them.
    expect(html.match(/<svg/g)).toHaveLength(8);
    expect(html).toContain('/docs/&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;');
  });

  it('adds the views, searches and assistant sections to text, --json and --html only when those streams are loaded', async () => {
    const alone = await runCli(['report', '--db', db]);
    expect(alone.stdout).not.toMatch(/Content views|Top searches|Assistant queries/);
    const r = await runCli(['report', '--db', streams]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Content views per day');
    expect(r.stdout).toContain('Top searches, last 7 days to 2026-03-02');
    expect(r.stdout).toContain('Searches with low CTR (docs gaps), 28 days to 2026-03-02');
    expect(r.stdout).toContain('Assistant queries by caller');
    const j = await runCli(['report', '--db', streams, '--json']);
    const p = (JSON.parse(j.stdout) as ReportData).projects[0];
    expect(p?.views?.latest.day).toBe(FIXTURE_LAST_DAY);
    expect(p?.searches?.gaps.map((t) => t.query)).toEqual([`<script>"x"&'y'`, 'rate limits']);
    expect(p?.callers?.daily).toHaveLength(28);
    const file = join(tmp.dir, 'streams.html');
    await runCli(['report', '--db', streams, '--html', file]);
    const html = readFileSync(file, 'utf8');
    // The four visitors charts and the views and callers ones, each drawn twice.
    expect(html.match(/<figure class="chart"/g)).toHaveLength(6);
    expect(html.match(/<svg/g)).toHaveLength(12);
    expect(html).not.toContain(`<script>"x"`);
  });

  it('shows the 7 days before as "not loaded" rather than 0 when none of them is loaded', async () => {
    const r = await runCli(['report', '--db', prevWeekMissing]);
    expect(r.code).toBe(0);
    const table = r.stdout.slice(r.stdout.indexOf('Last 7 days vs the 7 before'));
    const total = table.split('\n').find((l) => l.trimStart().startsWith('total')) ?? '';
    expect(total).toMatch(/^\s+total\s+12,880\s+not loaded\s+–$/);
    expect(table.replace(/\s+/g, ' ')).toContain(
      'No day of 2026-02-17 to 2026-02-23 is loaded: there is nothing to compare with (sync --from 2026-02-17 --to 2026-02-24 loads it).',
    );
    const j = JSON.parse((await runCli(['report', '--db', prevWeekMissing, '--json'])).stdout) as ReportData;
    expect(j.projects[0]?.prev7).toEqual({
      from: '2026-02-17',
      to: '2026-02-23',
      daysLoaded: 0,
      humanVisitorDays: null,
      aiVisitorDays: null,
      totalVisitorDays: null,
      aiShare: null,
      notLoaded: 'no day of 2026-02-17 to 2026-02-23 is loaded',
    });
    expect(j.projects[0]?.last7Change).toBeNull();
    const file = join(tmp.dir, 'prev-week-missing.html');
    await runCli(['report', '--db', prevWeekMissing, '--html', file]);
    const html = readFileSync(file, 'utf8');
    const period = html.slice(html.indexOf('Last 7 days vs the 7 before'));
    expect(period.slice(0, period.indexOf('</table>'))).toMatch(/<td[^>]*>not loaded<\/td>/);
    expect(html).not.toMatch(/<td class="num">0<\/td>/);
  });

  it.each([60, 72])(
    'fits every line into a terminal of %i columns (COLUMNS when stdout is not one)',
    async (cols) => {
      const r = await runCli(['report', '--db', everything], { COLUMNS: String(cols) });
      expect(r.code).toBe(0);
      const wide = r.stdout.split('\n').filter((l) => displayWidth(l) > cols);
      expect(wide).toEqual([]);
      // Narrowing keeps the numbers: the latest day's total and the top page's visitor-days.
      expect(r.stdout).toContain('Top pages, last 7 days');
      expect(r.stdout).toMatch(/^ {2}total +\d[\d,]* +[+-]\d/m);
    },
  );

  it('keeps its 100-column layout when stdout is not a terminal and COLUMNS is not set', async () => {
    const r = await runCli(['report', '--db', everything]);
    expect(Math.max(...r.stdout.split('\n').map((l) => displayWidth(l)))).toBeGreaterThan(72);
  });

  it('names one end day, the last complete one, in the header and in the note about a partial day', async () => {
    const r = await runCli(['report', '--db', everything]);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('2026-02-02 to 2026-03-01, 28 days');
    expect(text).toContain(
      'the report ends on 2026-03-01, the last complete day (the database holds days up to 2026-03-02)',
    );
    expect(text).not.toMatch(/ends on 2026-03-02/);
    const j = JSON.parse((await runCli(['report', '--db', everything, '--json'])).stdout) as ReportData;
    expect(j.projects[0]?.window.to).toBe('2026-03-01');
    expect(j.projects[0]?.coverage).toMatchObject({ lastDay: '2026-03-02', partialDays: 1 });
  });
});
