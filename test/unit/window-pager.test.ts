import { describe, expect, it } from 'vitest';
import { fetchWindow, type VisitorsPageLike, type VisitorsSource } from '../../src/extract/window-pager.js';
import type { PageRow } from '../../src/extract/visitor-counts.js';
import { DataShiftError, InternalError } from '../../src/errors.js';
import { checkInvariants } from '../../src/extract/quality.js';

const rows = (n: number, prefix = '/p'): PageRow[] =>
  Array.from({ length: n }, (_, i) => ({ path: `${prefix}${i}`, human: n - i, ai: 0, total: n - i }));

/** A source that answers from a script of pages, recording the offsets asked for. */
function scripted(pages: ((offset: number) => VisitorsPageLike)[]): VisitorsSource & { offsets: number[] } {
  const offsets: number[] = [];
  let call = 0;
  return {
    offsets,
    getVisitors(_p, q) {
      offsets.push(q.offset);
      const page = pages[call++];
      if (!page) throw new Error(`unexpected request at offset ${q.offset}`);
      return Promise.resolve(page(q.offset));
    },
  };
}

const totals = { human: 10, ai: 2, total: 11 };

describe('paging one day', () => {
  it('asks offset 0, 250, 500 while hasMore and returns every row once', async () => {
    const all = rows(501);
    const src = scripted(
      [0, 1, 2].map(() => (o: number) => ({
        totals,
        visitors: all.slice(o, o + 250),
        hasMore: o + 250 < 501,
      })),
    );
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(src.offsets).toEqual([0, 250, 500]);
    expect(w.pages).toEqual(all);
    expect(w.pagesFetched).toBe(3);
    expect(w.attempts).toBe(1);
  });

  it('ends the day on a page that says hasMore but has no rows', async () => {
    const all = rows(250);
    const src = scripted([
      () => ({ totals, visitors: all, hasMore: true }),
      () => ({ totals, visitors: [], hasMore: true }),
    ]);
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(w.pages).toHaveLength(250);
    expect(w.emptyPageWithMore).toBe(true);
    expect(src.offsets).toEqual([0, 250]);
  });

  it('flags a first page that says hasMore but has no rows, like a later one (it was silent)', async () => {
    const src = scripted([() => ({ totals, visitors: [], hasMore: true })]);
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(w.pages).toEqual([]);
    expect(w.emptyPageWithMore).toBe(true);
    expect(src.offsets).toEqual([0]);
  });

  it('fetches the whole day again when the totals change between pages', async () => {
    const all = rows(300);
    const page = (t: typeof totals) => (o: number) => ({
      totals: t,
      visitors: all.slice(o, o + 250),
      hasMore: o === 0,
    });
    const src = scripted([page(totals), page({ ...totals, total: 12 }), page(totals), page(totals)]);
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(src.offsets).toEqual([0, 250, 0, 250]);
    expect(w.attempts).toBe(2);
    expect(w.pages).toHaveLength(300);
  });

  it.each([
    ['ai', { ...totals, ai: 3 }],
    ['human', { ...totals, human: 11 }],
    ['total', { ...totals, total: 12 }],
  ])('fetches the whole day again when only %s changes between pages', async (_field, moved) => {
    // Any of the three moving means rows may have shifted between offsets: the pass is discarded.
    const all = rows(300);
    const page = (t: typeof totals) => (o: number) => ({
      totals: t,
      visitors: all.slice(o, o + 250),
      hasMore: o === 0,
    });
    const src = scripted([page(totals), page(moved), page(moved), page(moved)]);
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(src.offsets).toEqual([0, 250, 0, 250]);
    expect(w.attempts).toBe(2);
    expect(w.site).toEqual(moved);
  });

  it('fails the day with DataShiftError when a path keeps appearing twice', async () => {
    const dup = (o: number) => ({ totals, visitors: o === 0 ? rows(250) : rows(2), hasMore: o === 0 });
    const src = scripted(Array.from({ length: 6 }, () => dup));
    await expect(fetchWindow(src, 'p', '2026-01-01', '2026-01-02', { maxPasses: 3 })).rejects.toBeInstanceOf(
      DataShiftError,
    );
    expect(src.offsets).toEqual([0, 250, 0, 250, 0, 250]);
  });

  it('stops with an error instead of paging forever past maxPages', async () => {
    let i = 0;
    const src: VisitorsSource = {
      getVisitors: () => Promise.resolve({ totals, visitors: rows(1, `/x${i++}-`), hasMore: true }),
    };
    await expect(fetchWindow(src, 'p', '2026-01-01', '2026-01-02', { maxPages: 5 })).rejects.toBeInstanceOf(
      InternalError,
    );
  });

  it('returns a day of no rows with its totals after one request', async () => {
    const src = scripted([() => ({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false })]);
    const w = await fetchWindow(src, 'p', '2026-01-01', '2026-01-02');
    expect(w.pages).toEqual([]);
    expect(w.pagesFetched).toBe(1);
    expect(w.warnings).toEqual([]);
  });
});

describe('data-quality invariants', () => {
  it('flags a total above human + ai and a site total below its top page, without failing', () => {
    const kinds = checkInvariants({ human: 1, ai: 1, total: 5 }, [
      { path: '/a', human: 9, ai: 0, total: 9 },
    ]).map((w) => w.kind);
    expect(kinds).toEqual(['total_above_human_plus_ai', 'site_total_below_top_page']);
  });

  it('accepts de-duplicated counts: max(h, a) <= total <= h + a', () => {
    expect(
      checkInvariants({ human: 5, ai: 3, total: 7 }, [{ path: '/a', human: 5, ai: 3, total: 7 }]),
    ).toEqual([]);
  });

  it('flags a total below max(human, ai), for the site and for a page, without failing', () => {
    const warnings = checkInvariants({ human: 5, ai: 3, total: 4 }, [
      { path: '/a', human: 2, ai: 6, total: 4 },
    ]);
    expect(warnings).toEqual([
      { kind: 'total_below_max_of_human_ai', detail: 'site totals: total 4 < max(human 5, ai 3)' },
      { kind: 'total_below_max_of_human_ai', detail: 'path "/a": total 4 < max(human 2, ai 6)' },
    ]);
  });

  it('does not flag a total equal to max(human, ai): one audience may hold every visitor', () => {
    expect(
      checkInvariants({ human: 5, ai: 3, total: 5 }, [
        { path: '/a', human: 2, ai: 4, total: 4 },
        { path: '/b', human: 1, ai: 0, total: 1 },
      ]),
    ).toEqual([]);
  });
});
