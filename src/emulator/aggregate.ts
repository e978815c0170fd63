import type { Day } from './days.js';
import type { PageRow, QueryResult, Totals } from './page-counts.js';
import { dayFromNumber } from './days.js';

export const ZERO: Totals = Object.freeze({ human: 0, ai: 0, total: 0 });

/** One day as served: site totals and ordered rows. */
export interface DayData {
  readonly site: Totals;
  readonly rows: readonly PageRow[];
}

export function comparePageRows(a: PageRow, b: PageRow): number {
  if (a.total !== b.total) return b.total - a.total;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Site totals consistent with the rows: max(human, ai) <= total <= human + ai, at least the
 * busiest page, and (with two rows or more) below the sum of page totals, because visitors
 * read several pages. The proposal is clamped into that range.
 */
export function siteTotals(rows: readonly PageRow[], proposal: Totals): Totals {
  if (rows.length === 0) return ZERO;
  const first = rows[0];
  if (rows.length === 1 && first)
    return Object.freeze({ human: first.human, ai: first.ai, total: first.total });
  let maxH = 0;
  let maxA = 0;
  let maxT = 0;
  let sumT = 0;
  for (const r of rows) {
    maxH = Math.max(maxH, r.human);
    maxA = Math.max(maxA, r.ai);
    maxT = Math.max(maxT, r.total);
    sumT += r.total;
  }
  const human = clamp(proposal.human, maxH, Math.max(maxH, sumT - 1));
  const ai = clamp(proposal.ai, maxA, Math.max(maxA, sumT - 1));
  const total = clamp(proposal.total, Math.max(human, ai, maxT), Math.min(human + ai, sumT - 1));
  return Object.freeze({ human, ai, total });
}

/** Unique visitors over several days: the busiest day plus 35 % of the rest (integer maths, no float drift). */
function combine(max: number, sum: number): number {
  return Math.floor((65 * max + 35 * sum + 99) / 100);
}

interface Accumulator {
  maxH: number;
  sumH: number;
  maxA: number;
  sumA: number;
  maxT: number;
  sumT: number;
}

function accumulate(acc: Accumulator, c: Totals): void {
  acc.maxH = Math.max(acc.maxH, c.human);
  acc.sumH += c.human;
  acc.maxA = Math.max(acc.maxA, c.ai);
  acc.sumA += c.ai;
  acc.maxT = Math.max(acc.maxT, c.total);
  acc.sumT += c.total;
}

function emptyAccumulator(): Accumulator {
  return { maxH: 0, sumH: 0, maxA: 0, sumA: 0, maxT: 0, sumT: 0 };
}

export function aggregate(data: ReadonlyMap<Day, DayData>, fromNum: number, lastNum: number): QueryResult {
  if (lastNum < fromNum) return { totals: ZERO, rows: [] };
  if (lastNum === fromNum) {
    const d = data.get(dayFromNumber(fromNum));
    return { totals: d?.site ?? ZERO, rows: d?.rows ?? [] };
  }
  const perPath = new Map<string, Accumulator>();
  const site = emptyAccumulator();
  for (let n = fromNum; n <= lastNum; n++) {
    const d = data.get(dayFromNumber(n));
    if (!d) continue;
    accumulate(site, d.site);
    for (const r of d.rows) {
      let acc = perPath.get(r.path);
      if (!acc) perPath.set(r.path, (acc = emptyAccumulator()));
      accumulate(acc, r);
    }
  }
  const rows: PageRow[] = [];
  for (const [path, a] of perPath) {
    rows.push({
      path,
      human: combine(a.maxH, a.sumH),
      ai: combine(a.maxA, a.sumA),
      total: combine(a.maxT, a.sumT),
    });
  }
  rows.sort(comparePageRows);
  const totals = siteTotals(rows, {
    human: combine(site.maxH, site.sumH),
    ai: combine(site.maxA, site.sumA),
    total: combine(site.maxT, site.sumT),
  });
  return { totals, rows };
}

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}
