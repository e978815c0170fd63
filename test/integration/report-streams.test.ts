import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { gatherReport } from '../../src/report/data.js';
import type { ProjectReport } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import {
  buildReportFixture,
  callerCounts,
  FIXTURE_LAST_DAY,
  NASTY_PATH,
  NASTY_QUERY,
  pageViewCounts,
  searchCounts,
  siteCounts,
  UNLISTED_SEARCHES,
  viewCounts,
  type FixtureOptions,
} from '../helpers/report-fixture.js';

const tmp = tempDir('mintlify-etl-report-streams-');
afterAll(() => tmp.cleanup());

let n = 0;
async function project(opts: FixtureOptions, days = 28): Promise<ProjectReport> {
  const file = `${tmp.dir}/db${n++}.duckdb`;
  await buildReportFixture(file, opts);
  const db = await openDatabase(file, { readOnly: true });
  try {
    const p = (await gatherReport(duckSession(db.connection), { days })).projects[0];
    if (!p) throw new Error('no project');
    return p;
  } finally {
    db.close();
  }
}

/** Sum of f(i) over day indexes [from, to). */
function sum(from: number, to: number, f: (i: number) => number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += f(i);
  return s;
}

const LAST = 59;

describe('report sections of the other streams, from a real database', () => {
  let p: ProjectReport;
  beforeAll(async () => {
    p = await project({ streams: ['views', 'searches', 'caller_stats'] });
  });

  it('gives views per day over the window, the full 7-day average, and views per visitor', () => {
    const v = p.views;
    expect(v?.daily).toHaveLength(28);
    expect(v?.latest).toMatchObject({ day: FIXTURE_LAST_DAY, total: viewCounts(LAST).total });
    expect(v?.latest.total7dAvg).toBeCloseTo(sum(53, 60, (i) => viewCounts(i).total) / 7, 10);
    expect(v?.latest.viewsPerVisitor).toBeCloseTo(viewCounts(LAST).total / siteCounts(LAST).total, 10);
    expect(v?.latest.totalWowPct).toBeCloseTo(viewCounts(LAST).total / viewCounts(LAST - 7).total - 1, 10);
    expect(v?.last7.views).toBe(sum(53, 60, (i) => viewCounts(i).total));
    expect(v?.last7Change).toBeCloseTo(
      sum(53, 60, (i) => viewCounts(i).total) / sum(46, 53, (i) => viewCounts(i).total) - 1,
      10,
    );
    expect(v?.viewsPerVisitor7d).toBeCloseTo(
      sum(53, 60, (i) => viewCounts(i).total) / sum(53, 60, (i) => siteCounts(i).total),
      10,
    );
  });

  it('ranks pages by views over the last 7 days, with the change against the 7 before', () => {
    const pages = p.views?.topPages ?? [];
    const views = (path: string, a: number, b: number) =>
      sum(a, b, (i) => pageViewCounts(path, i)?.total ?? 0);
    expect(pages[0]).toMatchObject({
      rank: 1,
      path: '/introduction',
      views7d: views('/introduction', 53, 60),
    });
    expect(pages.find((t) => t.path === '/guides/rising')).toMatchObject({ viewsPrev7d: 0, changePct: null });
    const falling = pages.find((t) => t.path === '/guides/falling');
    expect(falling?.changePct).toBeCloseTo(
      views('/guides/falling', 53, 60) / views('/guides/falling', 46, 53) - 1,
      10,
    );
    expect(pages.some((t) => t.path === NASTY_PATH)).toBe(true);
  });

  it('lists the top search terms of the last 7 days with hit-weighted CTR and change', () => {
    const s = p.searches;
    expect(s?.lastDay).toBe(FIXTURE_LAST_DAY);
    expect(s?.topTerms.map((t) => [t.query, t.hits7d])).toEqual([
      ['authentication', 210],
      ['webhooks', 70],
      [NASTY_QUERY, 35],
      ['rate limits', 21],
      ['rare', 1],
    ]);
    const listed = sum(53, 60, (i) =>
      ['authentication', NASTY_QUERY, 'rate limits', 'rare', 'webhooks'].reduce(
        (a, q) => a + (searchCounts(q, i)?.hits ?? 0),
        0,
      ),
    );
    expect(s?.searches7d).toBe(listed + 7 * UNLISTED_SEARCHES);
    // 'rate limits' is clicked on even days only: 3 of its 7 days weigh 0.2.
    const rate = s?.topTerms.find((t) => t.query === 'rate limits');
    expect(rate?.ctr7d).toBeCloseTo(
      sum(53, 60, (i) => 3 * (searchCounts('rate limits', i)?.ctr ?? 0)) / 21,
      10,
    );
    expect(rate?.hitsChangePct).toBe(0);
    expect(s?.topTerms.find((t) => t.query === 'webhooks')).toMatchObject({
      hitsPrev7d: 0,
      hitsChangePct: null,
    });
    expect(s?.topTerms[0]?.topClickedPath).toBe('/guides/auth');
  });

  it('names as docs gaps the terms searched 20 times or more whose CTR is below the average, lowest first', () => {
    const s = p.searches;
    expect(s?.gapMinHits).toBe(20);
    // 'rare' (4 searches) is under the threshold; authentication and webhooks are above the average.
    expect(s?.gaps.map((t) => t.query)).toEqual([NASTY_QUERY, 'rate limits']);
    expect(s?.gaps[0]).toMatchObject({ hits28d: 140, ctr28d: 0, zeroClickShare28d: 1 });
    expect(s?.gaps[1]?.zeroClickShare28d).toBeCloseTo(0.5, 10);
    expect(s?.ctr28d).toBeCloseTo((840 * 0.5 + 84 * 0.1 + 70 * 0.9) / (840 + 140 + 84 + 4 + 70), 10);
  });

  it('gives assistant queries per day by caller with their shares', () => {
    const c = p.callers;
    const last = callerCounts(LAST);
    expect(c?.daily).toHaveLength(28);
    expect(c?.latest).toMatchObject({
      day: FIXTURE_LAST_DAY,
      web: last.web,
      api: last.api,
      total: last.total,
    });
    expect(c?.latest.webShare).toBeCloseTo(last.web / last.total, 10);
    expect(c?.last7).toMatchObject({
      day: '2026-02-24',
      to: FIXTURE_LAST_DAY,
      daysLoaded: 7,
      web: sum(53, 60, (i) => callerCounts(i).web),
      total: sum(53, 60, (i) => callerCounts(i).total),
    });
  });

  it('puts the sections in --json only for the loaded streams, none for visitors alone', async () => {
    const json = JSON.parse(JSON.stringify(p)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['views', 'searches', 'callers']));
    const alone = JSON.parse(JSON.stringify(await project({}))) as Record<string, unknown>;
    expect(Object.keys(alone)).not.toContain('views');
    expect(Object.keys(alone)).not.toContain('searches');
    expect(Object.keys(alone)).not.toContain('callers');
    const some = await project({ streams: ['caller_stats'] });
    expect(some.callers).toBeDefined();
    expect(some.views).toBeUndefined();
    expect(some.searches).toBeUndefined();
  });

  it('leaves a partial last day out of every section', async () => {
    const q = await project({ partialLast: true, streams: ['views', 'searches', 'caller_stats'] });
    expect(q.views?.latest.day).toBe('2026-03-01');
    expect(q.views?.daily.some((d) => d.day === FIXTURE_LAST_DAY)).toBe(false);
    expect(q.views?.topPages[0]?.views7d).toBe(
      sum(52, 59, (i) => pageViewCounts('/introduction', i)?.total ?? 0),
    );
    expect(q.searches?.lastDay).toBe('2026-03-01');
    expect(q.callers?.latest.day).toBe('2026-03-01');
  });

  it('gives no 7-day average of views, and no views per visitor over 7 days, across a gap', async () => {
    const q = await project({ skip: [56], streams: ['views'] });
    expect(q.views?.latest.total7dAvg).toBeNull();
    expect(q.views?.viewsPerVisitor7d).toBeNull();
    expect(q.views?.last7Change).toBeNull();
    expect(q.views?.last7.daysLoaded).toBe(6);
  });

  it('shows no change of search terms when a day of the two weeks was cut short, and says so', async () => {
    const q = await project({ streams: ['searches'], truncatedSearchDays: [50] });
    expect(q.searches?.truncatedDays28d).toBe(1);
    expect(q.searches?.topTerms.every((t) => t.hitsChangePct === null)).toBe(true);
    const out = renderTerminal({ generatedAt: '', days: 28, projects: [q] }, { color: false, width: 200 });
    expect(out).toContain(
      '1 day of the last 28 had the term list cut short by a page cap (--max-pages): rarer terms may be missing or low, and no change is shown when such a day is in the last 14.',
    );
  });
});
