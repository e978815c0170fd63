import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MintlifyClient } from '../../src/api/client.js';
import { streamOffsetWindow, type PassSink } from '../../src/extract/window-pager.js';
import type { PageRow } from '../../src/extract/visitor-counts.js';
import { prepareWindow, sitePageRows, VISITOR_SPEC } from '../../src/load/site-page-rows.js';
import type { SitePageData } from '../../src/load/table-spec.js';
import { JSON_CHUNK_ROWS } from '../../src/load/window-data.js';
import { views } from '../../src/streams/views.js';
import { visitors } from '../../src/streams/visitors.js';
import { HashedStringSet } from '../../src/util/hashed-string-set.js';
import { bigDayRow, bigDayTotals } from '../bench/big-day.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const W = { projectId: 'p', stream: 'visitors', day: '2026-01-05', dateTo: '2026-01-06', partial: false };
const META = { runId: 'r', fetchedAt: new Date('2026-01-07T00:00:00Z') };

/** A client serving one day of `rows` rows, 250 a page; `seen` gets every row object it handed out. */
function bigDayClient(rows: number, seen: WeakRef<object>[]): MintlifyClient {
  const totals = bigDayTotals(rows);
  return {
    getAnalytics: (req: { path: string; query: Record<string, string> }) => {
      const offset = Number(req.query['offset']);
      const end = Math.min(rows, offset + Number(req.query['limit']));
      const page: PageRow[] = [];
      for (let i = offset; i < end; i++) page.push(bigDayRow(i));
      for (const r of page) seen.push(new WeakRef(r));
      return Promise.resolve({ totals, [req.path]: page, hasMore: end < rows });
    },
  } as unknown as MintlifyClient;
}

function rowsOf(prepared: { data: unknown }): PageRow[] {
  const { chunks } = prepared.data as { chunks: { body: string }[] };
  return chunks.flatMap((c) => {
    const cols = JSON.parse(c.body) as Record<keyof PageRow, unknown[]>;
    return cols.path.map((path, i) => ({
      path: path as string,
      human: cols.human[i] as number,
      ai: cols.ai[i] as number,
      total: cols.total[i] as number,
    }));
  });
}

describe('a day of many pages (issue 19, item 15)', () => {
  for (const stream of [visitors, views]) {
    it(`${stream.name}: a fetched day holds none of its row objects while it waits for the writer, and loads every row as sent`, async () => {
      const seen: WeakRef<object>[] = [];
      const rows = 25_000;
      const fetched = await stream.fetch(bigDayClient(rows, seen), { ...W, stream: stream.name }, {});
      // A WeakRef keeps its target until the current job's microtasks are done: end the job first.
      await new Promise((r) => setImmediate(r));
      gc();
      expect(seen).toHaveLength(rows);
      expect(seen.filter((r) => r.deref() !== undefined)).toHaveLength(0);
      expect(fetched.rows).toBe(rows);
      expect(fetched.warnings).toEqual([]);
      const prepared = fetched.prepare(META);
      expect(prepared.rows).toBe(rows);
      expect(rowsOf(prepared)).toEqual(Array.from({ length: rows }, (_, i) => bigDayRow(i)));
    });
  }

  it('hands each page to the pass sink before asking for the next one', async () => {
    const log: string[] = [];
    const sink = (): PassSink => ({
      add: (rows) => {
        log.push(`add ${rows.length}`);
        return undefined;
      },
    });
    await streamOffsetWindow(
      (offset) => {
        log.push(`get ${offset}`);
        return Promise.resolve({
          totals: { human: 0, ai: 0, total: 0 },
          rows: [bigDayRow(offset)],
          hasMore: offset < 2,
        });
      },
      'p',
      '2026-01-05',
      sink,
      { limit: 1 },
    );
    expect(log).toEqual(['get 0', 'add 1', 'get 1', 'add 1', 'get 2', 'add 1']);
  });

  it('prepares the same window from pages as prepareWindow does from all the rows at once', () => {
    const all = Array.from({ length: 45_000 }, (_, i) => bigDayRow(i));
    const pages = sitePageRows(W);
    for (let i = 0; i < all.length; i += 250) expect(pages.add(all.slice(i, i + 250))).toBeUndefined();
    const meta = { ...W, ...META, site: bigDayTotals(0), pagesFetched: 180, attempts: 1, apiTotalsTotal: 0 };
    const streamed = pages.seal().prepare(meta, 'visitors', VISITOR_SPEC);
    const whole = prepareWindow({ ...meta, pages: all });
    // Compared by their text: the streamed day's chunks read theirs from files.
    const text = (p: typeof whole) => ({
      ...p,
      data: {
        ...(p.data as SitePageData),
        chunks: (p.data as SitePageData).chunks.map(({ rows, body }) => ({ rows, body })),
      },
    });
    expect(text(streamed)).toEqual(text(whole));
  });

  it('keeps the text of a day of more than one chunk in files until it is loaded, and reads it back the same each time (a failed batch loads it again)', () => {
    const rows = JSON_CHUNK_ROWS * 2 + 500;
    const pages = sitePageRows(W);
    for (let i = 0; i < rows; i += 250)
      pages.add(Array.from({ length: Math.min(250, rows - i) }, (_, j) => bigDayRow(i + j, true)));
    const meta = { ...W, ...META, site: bigDayTotals(0), pagesFetched: 81, attempts: 1, apiTotalsTotal: 0 };
    const prepared = pages.seal().prepare(meta, 'visitors', VISITOR_SPEC);
    const { chunks } = prepared.data as SitePageData;
    expect(chunks.map((c) => c.rows)).toEqual([JSON_CHUNK_ROWS, JSON_CHUNK_ROWS, 500]);
    // No chunk holds its text as a field: the heap holds none of the day's text while it waits.
    expect(chunks.filter((c) => Object.hasOwn(c, 'body'))).toEqual([]);
    const first = chunks.map((c) => c.body);
    expect(chunks.map((c) => c.body)).toEqual(first);
    expect(rowsOf(prepared)).toEqual(Array.from({ length: rows }, (_, i) => bigDayRow(i, true)));
  });

  it('keeps a day of one chunk in memory', () => {
    const pages = sitePageRows(W);
    pages.add([bigDayRow(0), bigDayRow(1)]);
    const meta = { ...W, ...META, site: bigDayTotals(0), pagesFetched: 1, attempts: 1, apiTotalsTotal: 0 };
    const { chunks } = pages.seal().prepare(meta, 'visitors', VISITOR_SPEC).data as SitePageData;
    expect(chunks.map((c) => Object.hasOwn(c, 'body'))).toEqual([true]);
  });

  it('says the pages disagree when a path comes back on a later page (the day is fetched again)', () => {
    const pages = sitePageRows(W);
    expect(pages.add([bigDayRow(0), bigDayRow(1)])).toBeUndefined();
    expect(pages.add([bigDayRow(2), bigDayRow(1)])).toBe(`path "${bigDayRow(1).path}" appeared twice`);
  });

  it('refuses the window when it is prepared for a bad count or two paths that only a lone surrogate told apart, as prepareWindow does', () => {
    const meta = { ...W, ...META, site: bigDayTotals(0), pagesFetched: 1, attempts: 1, apiTotalsTotal: 0 };
    const bad = sitePageRows(W);
    bad.add([bigDayRow(0), { ...bigDayRow(1), human: -1 }]);
    expect(() => bad.seal().prepare(meta, 'visitors', VISITOR_SPEC)).toThrow('page row 1 human is -1');
    const twins = sitePageRows(W);
    expect(twins.add([{ ...bigDayRow(0), path: '/a\uFFFD' }])).toBeUndefined();
    expect(twins.add([{ ...bigDayRow(1), path: '/a\uD800' }])).toBeUndefined();
    expect(() => twins.seal().prepare(meta, 'visitors', VISITOR_SPEC)).toThrow('unpaired UTF-16 surrogate');
  });
});

describe('HashedStringSet', () => {
  it('tells a string seen before from a new one, over a million strings, with no false repeat', () => {
    const set = new HashedStringSet();
    let added = 0;
    for (let i = 0; i < 1_000_000; i++) if (set.add(`/docs/page-${i}`)) added++;
    expect(added).toBe(1_000_000);
    expect(set.size).toBe(1_000_000);
    expect(set.add('/docs/page-999999')).toBe(false);
    expect(set.mayHave('/docs/page-0')).toBe(true);
    expect(set.mayHave('/docs/page-1000000')).toBe(false);
  });
});
