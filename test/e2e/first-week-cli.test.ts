import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gap } from '../../src/insights/gaps.js';
import type { Digest } from '../../src/insights/digest.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import type { ReportData } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { firstSync } from '../helpers/first-week-fixture.js';

/*
 * Issue 27 item 13, as a new user sees it: after a first budget-limited sync of 9 days, report,
 * gaps and digest say "not loaded" where they used to compare with 2 loaded days (+250%), call
 * every gap "new" and list pages "up" against a week that is not there.
 */
let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('mlx-first-week-'));
  db = join(dir, 'first.duckdb');
  const conn = await openDatabase(db);
  await firstSync(conn.connection);
  conn.close();
});

afterAll(() => cleanup());

/** +250%: the 7 days against the 2 of the week before, the figure that must never show. */
const INVENTED = /\+250(\.0)?%|\+1,400|\+1,500/;

describe('the first week as the CLI shows it', () => {
  it('report: the text says "not loaded" for every change and lists no mover', async () => {
    const r = await runCli(['report', '--db', db], { COLUMNS: '160' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(INVENTED);
    const top = r.stdout.slice(r.stdout.indexOf('Top pages, last 7 days'));
    const slash = top.split('\n').find((l) => /^\s+1\s+\/\s/.test(l)) ?? '';
    expect(slash).toMatch(/2,100\s.*not loaded$/);
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      'No change is shown: 2 of the 7 days before (2026-02-16 to 2026-02-22) are loaded',
    );
    const period = r.stdout.slice(r.stdout.indexOf('Last 7 days vs the 7 before'));
    expect(period.split('\n').find((l) => l.trimStart().startsWith('total'))).toMatch(/not loaded$/);
  });

  it('report --json: the change fields stay, null', async () => {
    const r = await runCli(['report', '--db', db, '--json']);
    expect(r.code).toBe(0);
    const p = (JSON.parse(r.stdout) as ReportData).projects[0];
    expect(p?.last7Change).toBeNull();
    expect(p?.comparable).toBe(false);
    expect(p?.topPages[0]).toMatchObject({
      path: '/',
      change: null,
      changePct: null,
      totalVisitorDaysPrev7d: null,
    });
    expect(Object.keys(p?.topPages[0] ?? {})).toContain('changePct');
    expect(p?.moversUp).toEqual([]);
  });

  it('report --html: the card says the 7 days before are not loaded, never a green +250%', async () => {
    const file = join(dir, 'first.html');
    const r = await runCli(['report', '--db', db, '--html', file]);
    expect(r.code).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(INVENTED);
    expect(html).toContain('the 7 days before not loaded (2 of 7): no change shown');
  });

  it('gaps: no gap is "new" and none is scored up by a trend; --json keeps previousCount and trend, null', async () => {
    const text = await runCli(['gaps', '--db', db]);
    expect(text.code).toBe(0);
    const table = text.stdout.slice(0, text.stdout.indexOf('score = '));
    expect(table).not.toMatch(/\bnew\b/);
    expect(text.stdout).toMatch(/unanswered .* not loaded/);
    const r = await runCli(['gaps', '--db', db, '--json']);
    const gaps = (JSON.parse(r.stdout) as { gaps: Gap[] }).gaps;
    expect(gaps).toHaveLength(3);
    for (const g of gaps) {
      expect(g).toHaveProperty('previousCount', null);
      expect(g).toHaveProperty('trend', null);
    }
    // 9 days of 20 searches without a click, 0.5 each: 90, not 135.
    expect(gaps.find((g) => g.kind === 'search')?.score).toBe(90);
  });

  it('digest: no change, no pages up and no new zero-click term against a week not loaded, in Markdown, HTML and --json', async () => {
    const md = await runCli(['digest', '--db', db]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('*Docs week 2026-W09 · docs · 2026-02-23 to 2026-03-01*');
    expect(md.stdout).toContain('• Human visitor-days: 700 (the week before not loaded: 2 of 7 days)');
    const notLoaded = '• not loaded: the week before is not loaded whole, so nothing is compared';
    expect(md.stdout).toContain(`*Pages up*\n${notLoaded}\n`);
    expect(md.stdout).toContain(`*Pages down*\n${notLoaded}\n`);
    expect(md.stdout).toContain(`*New searches without a click*\n${notLoaded}\n`);
    expect(md.stdout).not.toMatch(/\(\+[\d,]+\)|\bnew\)|, new\)/);
    expect(md.stdout).toMatch(/unanswered: .*\(14 this week, the week before not loaded\)/);
    const file = join(dir, 'digest.html');
    expect((await runCli(['digest', '--db', db, '--format', 'html', '--out', file])).code).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('not loaded: the week before is not loaded whole, so nothing is compared');
    expect(html).not.toMatch(/\(\+[\d,]+\)/);
    const j = JSON.parse((await runCli(['digest', '--db', db, '--json'])).stdout) as { digests: Digest[] };
    expect(j.digests[0]?.visitors).toEqual({
      now: 700,
      before: null,
      changePct: null,
      days: 7,
      daysBefore: 2,
    });
    expect(j.digests[0]?.moversUp).toBeNull();
  });
});
