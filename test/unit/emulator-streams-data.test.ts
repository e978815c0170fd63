import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/emulator/index.js';
import {
  addDays,
  buildDataset,
  FEEDBACK_PAGES_ON_EDGE,
  ODD_QUERIES,
  TODAY_FRACTION,
} from '../../src/emulator/index.js';

const TODAY = '2025-03-15';
const data = buildDataset({ seed: 7, days: 60, paths: 300, today: TODAY });

function allDays(d: Dataset): string[] {
  return [...d.days, d.today];
}

function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d < to; d = addDays(d, 1)) out.push(d);
  return out;
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

describe('views ground truth', () => {
  it('has one row per visited path with at least as many views as visitors, per traffic kind', () => {
    for (const day of allDays(data)) {
      const visitors = new Map(data.pages(day).map((r) => [r.path, r]));
      const { views } = data.views(day);
      expect(views.map((v) => v.path).sort()).toEqual([...visitors.keys()].sort());
      for (const v of views) {
        const who = visitors.get(v.path)!;
        expect(v.human).toBeGreaterThanOrEqual(who.human);
        expect(v.ai).toBeGreaterThanOrEqual(who.ai);
        expect(v.total).toBeGreaterThanOrEqual(who.total);
      }
    }
  });

  it('adds up: total = human + ai on every row, and the site totals are the sums over the paths', () => {
    for (const day of allDays(data)) {
      const { totals, views } = data.views(day);
      expect(views.every((v) => v.total === v.human + v.ai && isCount(v.human) && isCount(v.ai))).toBe(true);
      expect(totals.human).toBe(views.reduce((s, v) => s + v.human, 0));
      expect(totals.ai).toBe(views.reduce((s, v) => s + v.ai, 0));
      expect(totals.total).toBe(totals.human + totals.ai);
    }
  });

  it('orders rows by total descending, then path', () => {
    const { views } = data.views(data.days[30]!);
    const sorted = [...views].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
    expect(views).toEqual(sorted);
  });

  it('sums a range per path, day by day', () => {
    const [from, to] = [data.days[40]!, data.days[47]!];
    const sums = new Map<string, number>();
    for (const d of daysOf(from, to))
      for (const v of data.views(d).views) sums.set(v.path, (sums.get(v.path) ?? 0) + v.total);
    const range = data.viewsRange(from, to);
    expect(new Map(range.views.map((v) => [v.path, v.total]))).toEqual(sums);
  });
});

describe('searches ground truth', () => {
  it('serves one row per lower-cased query, ordered by hits descending then query', () => {
    for (const day of allDays(data)) {
      const { searches } = data.searches(day);
      const queries = searches.map((s) => s.searchQuery);
      expect(queries.every((q) => q === q.toLowerCase())).toBe(true);
      expect(new Set(queries).size).toBe(queries.length);
      const sorted = [...searches].sort(
        (a, b) => b.hits - a.hits || (a.searchQuery < b.searchQuery ? -1 : 1),
      );
      expect(searches).toEqual(sorted);
    }
  });

  it('keeps ctr in [0, 1], a top page only when someone clicked, and lastSearchedAt inside the day', () => {
    for (const day of allDays(data)) {
      const fraction = day === data.today ? TODAY_FRACTION : 1;
      const start = Date.parse(`${day}T00:00:00Z`);
      for (const s of data.searches(day).searches) {
        expect(s.ctr >= 0 && s.ctr <= 1).toBe(true);
        expect(s.topClickedPage === null).toBe(s.ctr === 0);
        const at = Date.parse(s.lastSearchedAt);
        expect(at >= start && at < start + 86_400_000 * fraction).toBe(true);
        expect(new Date(at).toISOString()).toBe(s.lastSearchedAt);
      }
    }
  });

  it('counts totalSearches as the sum of every hit', () => {
    for (const day of allDays(data)) {
      const { searches, totalSearches } = data.searches(day);
      expect(totalSearches).toBe(searches.reduce((s, r) => s + r.hits, 0));
    }
  });

  it('has the edge days: none, exactly 100 and exactly 101 queries', () => {
    const edge = data.streamEdgeDays;
    expect(data.searches(edge.empty)).toEqual({ searches: [], totalSearches: 0 });
    expect(data.searches(edge.searches100).searches).toHaveLength(100);
    expect(data.searches(edge.searches101).searches).toHaveLength(101);
  });

  it('carries the odd queries on every day with searches, and rows with no clicked page', () => {
    const odd = ODD_QUERIES.map((q) => q.toLowerCase());
    expect(odd).toContain("'; drop table x; --");
    for (const day of allDays(data)) {
      const { searches } = data.searches(day);
      if (searches.length === 0) continue;
      expect(searches.map((s) => s.searchQuery)).toEqual(expect.arrayContaining(odd));
      expect(searches.some((s) => s.topClickedPage === null)).toBe(true);
    }
  });

  it('aggregates a range: hits add up, ctr is hit-weighted, the latest search and the busiest clicked day win', () => {
    const [from, to] = [data.days[20]!, data.days[34]!];
    const perDay = daysOf(from, to).map((d) => data.searches(d).searches);
    for (const row of data.searchesRange(from, to).searches) {
      const mine = perDay.flatMap((rows) => rows.filter((r) => r.searchQuery === row.searchQuery));
      const hits = mine.reduce((s, r) => s + r.hits, 0);
      expect(row.hits).toBe(hits);
      expect(row.ctr).toBeCloseTo(mine.reduce((s, r) => s + r.ctr * r.hits, 0) / hits, 12);
      expect(row.lastSearchedAt).toBe(
        mine
          .map((r) => r.lastSearchedAt)
          .sort()
          .at(-1),
      );
      const clicked = mine.filter((r) => r.topClickedPage !== null);
      const busiest = clicked.reduce<(typeof clicked)[number] | undefined>(
        (best, r) => (best === undefined || r.hits >= best.hits ? r : best),
        undefined,
      );
      expect(row.topClickedPage).toBe(busiest?.topClickedPage ?? null);
    }
  });
});

describe('caller stats ground truth', () => {
  it('totals web + api + other, with a zero day and a one-call day', () => {
    for (const day of allDays(data)) {
      const c = data.callerStats(day);
      expect([c.web, c.api, c.other, c.total].every(isCount)).toBe(true);
      expect(c.total).toBe(c.web + c.api + c.other);
    }
    expect(data.callerStats(data.streamEdgeDays.empty).total).toBe(0);
    expect(data.callerStats(data.streamEdgeDays.callsOne).total).toBe(1);
  });

  it('adds a range up day by day', () => {
    const [from, to] = [data.days[0]!, addDays(TODAY, 1)];
    const web = daysOf(from, to).reduce((s, d) => s + data.callerStats(d).web, 0);
    expect(data.callerStatsRange(from, to).web).toBe(web);
  });
});

describe('feedback by page ground truth', () => {
  it('lands only on viewed pages, with thumbs and code counts inside the total', () => {
    for (const day of allDays(data)) {
      const viewed = new Set(data.views(day).views.map((v) => v.path));
      for (const f of data.feedbackPages(day, addDays(day, 1))) {
        expect(viewed.has(f.path)).toBe(true);
        expect(f.total).toBeGreaterThanOrEqual(f.thumbsUp + f.thumbsDown + f.code);
        expect(f.total).toBeGreaterThan(0);
      }
    }
  });

  it('has a day with more than 100 pages of feedback, which a fetch gets only the first 100 of', () => {
    const day = data.streamEdgeDays.feedbackOver100;
    expect(data.feedbackPages(day, addDays(day, 1))).toHaveLength(FEEDBACK_PAGES_ON_EDGE);
    const truth = data.feedbackByPage(day);
    expect(truth.feedback).toHaveLength(100);
    expect(truth.hasMore).toBe(true);
  });

  it('splits the total by source: contextual thumbs, code snippets, and the rest', () => {
    const [from, to] = [data.days[0]!, data.days[59]!];
    const all = new Map(data.feedbackPages(from, to).map((r) => [r.path, r]));
    const bySource = (source: 'contextual' | 'code_snippet' | 'agent' | 'thumbs_only') =>
      new Map(data.feedbackPages(from, to, { source }).map((r) => [r.path, r.total]));
    const [contextual, code, agent, thumbs] = [
      bySource('contextual'),
      bySource('code_snippet'),
      bySource('agent'),
      bySource('thumbs_only'),
    ];
    for (const [path, r] of all) {
      const parts = [contextual, code, agent, thumbs].reduce((s, m) => s + (m.get(path) ?? 0), 0);
      expect(parts).toBe(r.total);
      expect(contextual.get(path) ?? 0).toBe(r.thumbsUp + r.thumbsDown);
      expect(code.get(path) ?? 0).toBe(r.code);
    }
  });
});

describe('the day streams as a whole', () => {
  it('are the same for the same seed and differ for another seed', () => {
    const again = buildDataset({ seed: 7, days: 60, paths: 300, today: TODAY });
    const other = buildDataset({ seed: 8, days: 60, paths: 300, today: TODAY });
    const snap = (d: Dataset, day: string) =>
      JSON.stringify([d.views(day), d.searches(day), d.callerStats(day), d.feedbackByPage(day)]);
    const day = data.days[33]!;
    expect(snap(again, day)).toBe(snap(data, day));
    expect(snap(other, day)).not.toBe(snap(data, day));
  });

  it('give a day the same data whichever days were asked for first', () => {
    const fresh = buildDataset({ seed: 7, days: 60, paths: 300, today: TODAY });
    const day = data.days[50]!;
    const before = JSON.stringify(fresh.searches(day));
    fresh.searchesRange(data.days[0]!, addDays(TODAY, 1));
    expect(JSON.stringify(fresh.searches(day))).toBe(before);
    expect(before).toBe(JSON.stringify(data.searches(day)));
  });

  it('place every edge day on a distinct full day even in the shortest dataset', () => {
    const short = buildDataset({ seed: 3, days: 4, paths: 20, today: TODAY });
    const e = short.streamEdgeDays;
    const own = [e.empty, e.searches100, e.searches101, e.callsOne];
    expect(new Set(own).size).toBe(4);
    expect(own.every((d) => short.days.includes(d))).toBe(true);
    expect(short.searches(e.searches101).searches).toHaveLength(101);
    expect(short.callerStats(e.callsOne).total).toBe(1);
  });

  it('hands out copies, so editing a result cannot change the ground truth', () => {
    const day = data.days[10]!;
    const count = data.searches(day).searches.length;
    (data.views(day).views[0] as { path: string }).path = 'edited';
    data.searches(day).searches.pop();
    expect(data.views(day).views[0]!.path).not.toBe('edited');
    expect(data.searches(day).searches).toHaveLength(count);
  });
});
