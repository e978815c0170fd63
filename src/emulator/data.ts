import { aggregate, ZERO } from './aggregate.js';
import type { DayData } from './aggregate.js';
import { CASE_PAIR } from './catalogue.js';
import type { Day } from './days.js';
import { addDays, dayFromNumber, dayNumber, utcToday } from './days.js';
import { buildProfiles, generateDay } from './generate.js';
import { mixSeed, mulberry32 } from './prng.js';
import type { StreamGroundTruth } from './stream-truth.js';
import { streamGroundTruth } from './stream-truth.js';
import type { StreamHooks, Streams } from './streams.js';
import { buildStreams } from './streams.js';
import type { PageRow, QueryResult, Totals } from './page-counts.js';

export type { Day } from './days.js';
export { comparePageRows } from './aggregate.js';
export type { PageRow, QueryResult, Totals } from './page-counts.js';

export interface EdgeDays {
  /** A day with no rows at all and site totals 0. */
  readonly empty: Day;
  /** Exactly 250 rows: one full page at limit 250 (capped at `paths`). */
  readonly rows250: Day;
  /** Exactly 251 rows: a full page plus one row (capped at `paths`). */
  readonly rows251: Day;
  /** Exactly 500 rows: two full pages (capped at `paths`; the default 300 paths gives 300 rows). */
  readonly rows500: Day;
}

export interface DatasetOptions {
  seed: number;
  /** Full days before `today`, ending yesterday. At least 4, so every edge day has a place. */
  days: number;
  /** Distinct paths in the catalogue. Edge days of 250/251/500 rows need at least that many. */
  paths: number;
  /** Default: the current UTC day. */
  today?: Day;
  projectId?: string;
}

export interface Dataset extends StreamGroundTruth, StreamHooks {
  readonly projectId: string;
  readonly seed: number;
  /** The partial current day: served and in site()/pages(), not in `days`. */
  readonly today: Day;
  /** `days` full days ending yesterday, ascending. */
  readonly days: readonly Day[];
  /** Every path of the catalogue, most popular first. */
  readonly paths: readonly string[];
  readonly edgeDays: EdgeDays;
  site(day: Day): Totals;
  pages(day: Day): PageRow[];
  /** [dateFrom, dateTo): one day gives exactly that day; several days are de-duplicated, not summed. */
  query(dateFrom: Day, dateTo: Day): { totals: Totals; rows: PageRow[] };
  /** The day streams (views, searches, caller stats, feedback) as the server reads them. */
  readonly streams: Streams;
}

/**
 * Edge days sit this many days before `today` (1 = yesterday), all inside the last 30 days
 * so a default first sync meets every one of them, and clear of the 3-day lookback.
 */
export const EDGE_DAY_OFFSETS: Readonly<Record<keyof EdgeDays, number>> = Object.freeze({
  rows251: 6,
  rows250: 10,
  empty: 14,
  rows500: 21,
});

export const DEFAULT_PROJECT_ID = 'proj_demo';
/** Share of a full day's traffic the current day shows: fixed, so `today` is deterministic too. */
export const TODAY_FRACTION = 0.4;

/** Builds the whole synthetic service from a seed: pure, deterministic, no clock unless `today` is omitted. */
export function buildDataset(opts: DatasetOptions): Dataset {
  const { seed } = opts;
  if (!Number.isSafeInteger(opts.days) || opts.days < 4) {
    throw new RangeError(`days must be an integer of at least 4 (the edge days need room), got ${opts.days}`);
  }
  if (!Number.isSafeInteger(opts.paths) || opts.paths < 1) {
    throw new RangeError(`paths must be a positive integer, got ${opts.paths}`);
  }
  const today = opts.today ?? utcToday();
  const todayNum = dayNumber(today);
  if (!Number.isFinite(todayNum) || dayFromNumber(todayNum) !== today) {
    throw new RangeError(`today must be a YYYY-MM-DD day, got ${today}`);
  }
  const firstNum = todayNum - opts.days;
  const days = Array.from({ length: opts.days }, (_, i) => dayFromNumber(firstNum + i));
  const profiles = buildProfiles(seed, opts.paths);
  const caseIndex = {
    upper: profiles.findIndex((p) => p.path === CASE_PAIR.upper),
    lower: profiles.findIndex((p) => p.path === CASE_PAIR.lower),
  };
  const edgeDays = placeEdgeDays(today, opts.days);
  const edgeTargets = new Map<Day, number>([
    [edgeDays.empty, 0],
    [edgeDays.rows250, 250],
    [edgeDays.rows251, 251],
    [edgeDays.rows500, 500],
  ]);

  const data = new Map<Day, DayData>();
  for (let n = firstNum; n <= todayNum; n++) {
    const day = dayFromNumber(n);
    const target = edgeTargets.get(day);
    const scale = n === todayNum ? TODAY_FRACTION : 1;
    data.set(day, generateDay(profiles, caseIndex, mulberry32(mixSeed(seed, n)), n, scale, target));
  }

  const cache = new Map<string, QueryResult>();
  const query = (dateFrom: Day, dateTo: Day): QueryResult => {
    const key = `${dateFrom}|${dateTo}`;
    let hit = cache.get(key);
    if (!hit) {
      hit = aggregate(
        data,
        Math.max(dayNumber(dateFrom), firstNum),
        Math.min(dayNumber(dateTo) - 1, todayNum),
      );
      if (cache.size >= 64) cache.delete(cache.keys().next().value ?? key);
      cache.set(key, hit);
    }
    return hit;
  };

  const paths = Object.freeze(profiles.map((p) => p.path));
  const streams = buildStreams({
    seed,
    today,
    days: opts.days,
    paths,
    visitorsEmpty: edgeDays.empty,
    visitorsWidest: edgeDays.rows500,
    visitorRows: (day) => data.get(day)?.rows ?? [],
    fraction: (day) => (day === today ? TODAY_FRACTION : 1),
  });

  return Object.freeze({
    ...streamGroundTruth(streams),
    streams,
    setFeedbackStatus: streams.setFeedbackStatus,
    triageFeedback: streams.triageFeedback,
    appendAssistantTurn: streams.appendAssistantTurn,
    fixQuestion: streams.fixQuestion,
    projectId: opts.projectId ?? DEFAULT_PROJECT_ID,
    seed,
    today,
    days: Object.freeze(days),
    paths,
    edgeDays,
    site: (day: Day): Totals => ({ ...(data.get(day)?.site ?? ZERO) }),
    // Copies, so a caller that edits what it got cannot change the ground truth.
    pages: (day: Day) => copyRows(data.get(day)?.rows ?? []),
    query: (dateFrom: Day, dateTo: Day) => {
      const r = query(dateFrom, dateTo);
      return { totals: { ...r.totals }, rows: copyRows(r.rows) };
    },
  });
}

/** The ground truth tests compare the database against: the same function, named for that use. */
export const groundTruth = buildDataset;

function placeEdgeDays(today: Day, days: number): EdgeDays {
  // Pushed nearer to today, keeping their order, when the dataset is shorter than the ideal offsets.
  const rows500 = Math.min(EDGE_DAY_OFFSETS.rows500, days);
  const empty = Math.min(EDGE_DAY_OFFSETS.empty, rows500 - 1);
  const rows250 = Math.min(EDGE_DAY_OFFSETS.rows250, empty - 1);
  const rows251 = Math.min(EDGE_DAY_OFFSETS.rows251, rows250 - 1);
  return Object.freeze({
    empty: addDays(today, -empty),
    rows250: addDays(today, -rows250),
    rows251: addDays(today, -rows251),
    rows500: addDays(today, -rows500),
  });
}

function copyRows(rows: readonly PageRow[]): PageRow[] {
  return rows.map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total }));
}
