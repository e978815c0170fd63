import type { CallerStats } from './caller-stats.js';
import { aggregateCallerStats, generateCallerStats, NO_CALLS } from './caller-stats.js';
import type { PageRow } from './data.js';
import type { Day } from './days.js';
import { addDays, dayFromNumber, dayNumber } from './days.js';
import type { FeedbackCells } from './feedback-by-page.js';
import { aggregateFeedback, generateFeedbackDay } from './feedback-by-page.js';
import { mixSeed, mulberry32 } from './prng.js';
import { buildSearchVocabulary } from './search-terms.js';
import type { SearchesResult } from './searches.js';
import { aggregateSearches, generateSearchDay, NO_SEARCHES } from './searches.js';
import type { ViewsResult } from './views.js';
import { aggregateViews, generateViews, NO_VIEWS } from './views.js';

/** Days where the day streams meet their edge cases. */
export interface StreamEdgeDays {
  /** No searches, no assistant calls, no feedback: the visitors' empty day, empty everywhere. */
  readonly empty: Day;
  /** Exactly 100 distinct search queries: one full page at limit 100. */
  readonly searches100: Day;
  /** Exactly 101 distinct search queries: a full page at limit 100 plus one. */
  readonly searches101: Day;
  /** Assistant caller stats total exactly 1 (one API call). */
  readonly callsOne: Day;
  /** FEEDBACK_PAGES_ON_EDGE pages with feedback (capped at the pages viewed that day): more than one request can fetch. */
  readonly feedbackOver100: Day;
}

/** Preferred distance from today of the stream edge days that have a day of their own. */
export const STREAM_EDGE_OFFSETS = Object.freeze({ searches100: 8, searches101: 9, callsOne: 12 });
export const FEEDBACK_PAGES_ON_EDGE = 137;
/** Distinct queries users type: room for the 101-query day. */
export const SEARCH_VOCABULARY_SIZE = 160;

/** One day of every stream, built together from the day's own seeded stream. */
interface DayStreams {
  readonly views: ViewsResult;
  readonly searches: SearchesResult;
  readonly calls: CallerStats;
  readonly feedback: readonly FeedbackCells[];
}

export interface StreamSource {
  seed: number;
  today: Day;
  /** Full days in the dataset, ending yesterday. */
  days: number;
  paths: readonly string[];
  /** The visitors' empty day and their 500-row day (the most pages viewed). */
  visitorsEmpty: Day;
  visitorsWidest: Day;
  /** The visitor rows of a day served by the dataset. */
  visitorRows(day: Day): readonly PageRow[];
  /** Share of the day that has passed (1 for full days). */
  fraction(day: Day): number;
}

export interface Streams {
  readonly edgeDays: StreamEdgeDays;
  views(dateFrom: Day, dateTo: Day): ViewsResult;
  searches(dateFrom: Day, dateTo: Day): SearchesResult;
  callerStats(dateFrom: Day, dateTo: Day): CallerStats;
  feedback(dateFrom: Day, dateTo: Day): readonly FeedbackCells[];
}

/** Stream edge days at their preferred offsets, moved to the nearest free full day when the dataset is short or crowded. */
function placeStreamEdges(src: StreamSource): StreamEdgeDays {
  const taken = new Set<number>([dayNumber(src.today) - dayNumber(src.visitorsEmpty)]);
  const place = (offset: number): Day => {
    const want = Math.min(offset, src.days);
    const order = [
      ...Array.from({ length: want }, (_, i) => want - i),
      ...Array.from({ length: src.days - want }, (_, i) => want + 1 + i),
    ];
    const free = order.find((o) => !taken.has(o)) ?? want;
    taken.add(free);
    return addDays(src.today, -free);
  };
  return Object.freeze({
    empty: src.visitorsEmpty,
    searches100: place(STREAM_EDGE_OFFSETS.searches100),
    searches101: place(STREAM_EDGE_OFFSETS.searches101),
    callsOne: place(STREAM_EDGE_OFFSETS.callsOne),
    feedbackOver100: src.visitorsWidest,
  });
}

/**
 * Views, searches, caller stats and feedback for every day, built lazily (a day only when
 * first asked for) from (seed, day) streams of their own, so adding them changed no visitor
 * count and a day's data does not depend on which days were built before it.
 */
export function buildStreams(src: StreamSource): Streams {
  const edgeDays = placeStreamEdges(src);
  const vocabulary = buildSearchVocabulary(src.seed, SEARCH_VOCABULARY_SIZE);
  const firstNum = dayNumber(src.today) - src.days;
  const todayNum = dayNumber(src.today);
  const built = new Map<Day, DayStreams>();

  const buildDay = (day: Day): DayStreams => {
    const n = dayNumber(day);
    const random = mulberry32(mixSeed(src.seed, n, 0x57e4));
    const empty = day === edgeDays.empty;
    const views = generateViews(src.visitorRows(day), random);
    const searchTarget = empty
      ? 0
      : day === edgeDays.searches100
        ? 100
        : day === edgeDays.searches101
          ? 101
          : undefined;
    const searchDay = {
      vocabulary,
      paths: src.paths,
      dayStartMs: n * 86_400_000,
      fraction: src.fraction(day),
    };
    const searches = generateSearchDay(
      { ...searchDay, volume: views.totals.human * 0.15, target: searchTarget },
      random,
    );
    const exactly = empty ? 0 : day === edgeDays.callsOne ? 1 : undefined;
    const calls = generateCallerStats(views.totals.human, random, exactly);
    const feedbackTarget = day === edgeDays.feedbackOver100 ? FEEDBACK_PAGES_ON_EDGE : undefined;
    const feedback = generateFeedbackDay(views.views, random, feedbackTarget);
    return { views, searches, calls, feedback };
  };
  const dayStreams = (n: number): DayStreams | undefined => {
    if (n < firstNum || n > todayNum) return undefined;
    const day = dayFromNumber(n);
    let d = built.get(day);
    if (!d) built.set(day, (d = buildDay(day)));
    return d;
  };
  const inRange = (dateFrom: Day, dateTo: Day): DayStreams[] => {
    const out: DayStreams[] = [];
    const last = Math.min(dayNumber(dateTo) - 1, todayNum);
    for (let n = Math.max(dayNumber(dateFrom), firstNum); n <= last; n++) {
      const d = dayStreams(n);
      if (d) out.push(d);
    }
    return out;
  };
  const views = cached((f: Day, t: Day) => {
    const days = inRange(f, t);
    return days.length === 0 ? NO_VIEWS : aggregateViews(days.map((d) => d.views));
  });
  const searches = cached((f: Day, t: Day) => {
    const days = inRange(f, t);
    return days.length === 0 ? NO_SEARCHES : aggregateSearches(days.map((d) => d.searches));
  });
  const callerStats = (f: Day, t: Day) => {
    const days = inRange(f, t);
    return days.length === 0 ? NO_CALLS : aggregateCallerStats(days.map((d) => d.calls));
  };
  const feedback = cached((f: Day, t: Day) => {
    const days = inRange(f, t);
    return days.length === 1 && days[0] ? days[0].feedback : aggregateFeedback(days.map((d) => d.feedback));
  });
  return { edgeDays, views, searches, callerStats, feedback };
}

/** Remembers the 64 most recently built ranges, so paging through one does not rebuild it per page. */
function cached<T>(build: (dateFrom: Day, dateTo: Day) => T): (dateFrom: Day, dateTo: Day) => T {
  const cache = new Map<string, T>();
  return (dateFrom, dateTo) => {
    const key = `${dateFrom}|${dateTo}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      hit = build(dateFrom, dateTo);
      if (cache.size >= 64) cache.delete(cache.keys().next().value ?? key);
    } else {
      cache.delete(key);
    }
    cache.set(key, hit);
    return hit;
  };
}
