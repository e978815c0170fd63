import type { PageRow } from './page-counts.js';
import { buildCatalogue, ODD_PATHS } from './catalogue.js';
import type { DayData } from './aggregate.js';
import { clamp, comparePageRows, siteTotals } from './aggregate.js';
import { dayNumber } from './days.js';
import type { Random } from './prng.js';
import { mixSeed, mulberry32, poisson } from './prng.js';

/*
 * Synthetic traffic shaped like a docs site's: Zipf popularity over the catalogue, a weekly
 * cycle with quiet weekends, slow growth (AI traffic growing faster than human), and Poisson
 * counts so the tail has real zeros. Each day draws from its own (seed, day) stream.
 */
const ZIPF_EXPONENT = 1.05;
// Page views per path a weekday brings, before popularity: scales with the catalogue so the
// long tail looks the same (a tenth to a third of it unvisited each day) at any size.
const BASE_PER_PATH = 3;
// Sunday first, as getUTCDay counts.
const WEEKLY = [0.45, 1.0, 1.08, 1.05, 1.02, 0.9, 0.5];
const GROWTH_EPOCH = dayNumber('2024-01-01');

export interface PathProfile {
  readonly path: string;
  readonly weight: number;
  readonly aiRatio: number;
  readonly overlap: number;
  readonly odd: boolean;
}

/** Per-path traits fixed for the dataset: popularity, share of AI readers, human/AI overlap. */
export function buildProfiles(seed: number, count: number): PathProfile[] {
  const random = mulberry32(mixSeed(seed, 0x9a7e));
  const odd = new Set(ODD_PATHS);
  const raw = buildCatalogue(seed, count).map((path, rank) => ({
    path,
    raw: (rank + 1) ** -ZIPF_EXPONENT,
    aiRatio: 0.05 + 0.55 * random(),
    overlap: 0.25 * random(),
    odd: odd.has(path),
  }));
  const sum = raw.reduce((s, p) => s + p.raw, 0);
  return raw.map((p) => ({
    path: p.path,
    weight: p.raw / sum,
    aiRatio: p.aiRatio,
    overlap: p.overlap,
    odd: p.odd,
  }));
}

/** One day's counts per catalogue index: parallel arrays keep a 300 x 90 build cheap. */
interface Counts {
  readonly human: Int32Array;
  readonly ai: Int32Array;
  readonly total: Int32Array;
}

function setCounts(c: Counts, i: number, human: number, ai: number, total: number): void {
  c.human[i] = human;
  c.ai[i] = ai;
  c.total[i] = total;
}

/**
 * One day: `scale` shrinks the current day to its partial share; `target` (an edge day)
 * forces an exact row count.
 */
export function generateDay(
  profiles: readonly PathProfile[],
  caseIndex: { upper: number; lower: number },
  random: Random,
  n: number,
  scale: number,
  target: number | undefined,
): DayData {
  const weekday = (((n + 4) % 7) + 7) % 7;
  const growth = clamp(1 + 0.0012 * (n - GROWTH_EPOCH), 0.5, 3);
  const aiGrowth = clamp(1 + 0.0015 * (n - GROWTH_EPOCH), 0.3, 3);
  const base =
    BASE_PER_PATH * profiles.length * (WEEKLY[weekday] ?? 1) * growth * (0.9 + 0.2 * random()) * scale;

  const size = profiles.length;
  const counts: Counts = {
    human: new Int32Array(size),
    ai: new Int32Array(size),
    total: new Int32Array(size),
  };
  profiles.forEach((p, i) => {
    // Every path draws the same number of values, so one path's luck never shifts another's.
    const h = poisson(random, base * p.weight * (0.6 + 0.8 * random()));
    const a = poisson(random, base * p.weight * p.aiRatio * aiGrowth * (0.7 + 0.6 * random()));
    if (p.odd && h + a === 0) setCounts(counts, i, 1, 0, 1);
    else setCounts(counts, i, h, a, h + a - Math.floor(Math.min(h, a) * p.overlap));
  });
  const siteShare = {
    human: 0.55 + 0.2 * random(),
    ai: 0.6 + 0.2 * random(),
    overlap: 0.05 + 0.15 * random(),
  };

  if (target !== undefined) forceRowCount(profiles, counts, target);

  // Every third day and every edge day the case pair ties, so only the path order separates them.
  const { upper, lower } = caseIndex;
  if (upper >= 0 && lower >= 0 && (n % 3 === 0 || target !== undefined) && (counts.total[upper] ?? 0) > 0) {
    setCounts(counts, lower, counts.human[upper] ?? 0, counts.ai[upper] ?? 0, counts.total[upper] ?? 0);
  }

  const rows: PageRow[] = [];
  let sumH = 0;
  let sumA = 0;
  profiles.forEach((p, i) => {
    const total = counts.total[i] ?? 0;
    if (total === 0) return;
    const human = counts.human[i] ?? 0;
    const ai = counts.ai[i] ?? 0;
    sumH += human;
    sumA += ai;
    rows.push({ path: p.path, human, ai, total });
  });
  rows.sort(comparePageRows);
  const human = Math.round(sumH * siteShare.human);
  const ai = Math.round(sumA * siteShare.ai);
  const site = siteTotals(rows, {
    human,
    ai,
    total: human + ai - Math.floor(Math.min(human, ai) * siteShare.overlap),
  });
  return { site, rows };
}

/**
 * Makes exactly `target` paths (capped at the catalogue) visited: the odd paths first, then
 * the busiest of the day, then by popularity; a forced-in path gets one human visitor.
 */
function forceRowCount(profiles: readonly PathProfile[], counts: Counts, target: number): void {
  const want = Math.min(target, profiles.length);
  const order = profiles
    .map((p, i) => ({ i, odd: p.odd, total: counts.total[i] ?? 0 }))
    .sort((a, b) => Number(b.odd) - Number(a.odd) || b.total - a.total || a.i - b.i);
  order.forEach(({ i, total }, k) => {
    if (k >= want) setCounts(counts, i, 0, 0, 0);
    else if (total === 0) setCounts(counts, i, 1, 0, 1);
  });
}
