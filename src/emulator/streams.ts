import type { CallerStats } from './caller-stats.js';
import { aggregateCallerStats, generateCallerStats, NO_CALLS } from './caller-stats.js';
import type { PageRow } from './page-counts.js';
import type { Day } from './days.js';
import { addDays, dayFromNumber, dayNumber } from './days.js';
import type { AssistantThreadBody, AssistantTurn, ThreadDraft } from './assistant.js';
import {
  answeredAfterFix,
  appendedTurn,
  compareTurns,
  copyTurn,
  generateAssistantDay,
  threadBody,
} from './assistant.js';
import type { FeedbackCells, FeedbackFilter, FeedbackStatus } from './feedback-by-page.js';
import { aggregateFeedback, FEEDBACK_STATUSES, generateFeedbackDay } from './feedback-by-page.js';
import type { FeedbackItem } from './feedback-events.js';
import {
  compareFeedback,
  feedbackKind,
  generateFeedbackEvents,
  generateUndatedFeedback,
  matchesFeedbackFilter,
} from './feedback-events.js';
import { mixSeed, mulberry32 } from './prng.js';
import { ulidTime } from './ulid.js';
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

export interface TriageOptions {
  dateFrom: Day;
  dateTo: Day;
  /** At most this many items change. */
  count: number;
  /** Default `resolved`. */
  to?: FeedbackStatus | undefined;
}

/** Test hooks: change what the service holds between two syncs, as its users do (plain functions, safe to pass around). */
export interface StreamHooks {
  /**
   * Sets the status of feedback items (dated or undated), as a docs team triaging feedback
   * does; the service records no time for it. Throws a RangeError for an id it does not hold.
   */
  readonly setFeedbackStatus: (ids: readonly string[], status: FeedbackStatus) => void;
  /**
   * Moves the first `count` dated items of [dateFrom, dateTo) (by id) whose status is not
   * `to` to `to`; returns their ids. Deterministic for a dataset and its earlier changes.
   */
  readonly triageFeedback: (opts: TriageOptions) => string[];
  /**
   * Adds a turn at `at` (ISO 8601, after the thread's last message and before the dataset's
   * now) to a thread; returns the new turn. Throws a RangeError for an unknown thread or time.
   */
  readonly appendAssistantTurn: (threadId: string, at: string) => AssistantTurn;
  /**
   * The docs now answer `question` (compared ignoring case): its turns from `fromMs` on are
   * answered, as after an agent job's pull request is merged. The transcripts stay as they were.
   */
  readonly fixQuestion: (question: string, fromMs: number) => void;
}

export interface Streams extends StreamHooks {
  readonly edgeDays: StreamEdgeDays;
  views(dateFrom: Day, dateTo: Day): ViewsResult;
  searches(dateFrom: Day, dateTo: Day): SearchesResult;
  callerStats(dateFrom: Day, dateTo: Day): CallerStats;
  /** Counts per path of the range's dated feedback items, statuses as they are now. */
  feedback(dateFrom: Day, dateTo: Day): readonly FeedbackCells[];
  /**
   * GET /feedback for a range, unfiltered, in the served order (createdAt desc, id): the dated
   * items of the range, then the undated ones. Shared objects: copy before handing out.
   */
  feedbackEvents(dateFrom: Day, dateTo: Day, filter?: FeedbackFilter): readonly FeedbackItem[];
  feedbackUndated(): readonly FeedbackItem[];
  /** Every turn with timestamp in [dateFrom, dateTo), ordered by thread id then timestamp. Shared objects. */
  assistantTurns(dateFrom: Day, dateTo: Day): readonly AssistantTurn[];
  assistantThread(threadId: string): AssistantThreadBody | undefined;
  assistantThreadIds(dateFrom: Day, dateTo: Day): string[];
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
 * count and a day's data does not depend on which days were built before it. The event
 * streams follow the same rule: a day's feedback items come from its by-page cells and a
 * (seed, day) stream of their own, its assistant threads (those whose first turn is that day)
 * from another. The test hooks' changes (statuses, appended turns) live beside the generated
 * data, which is never edited.
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
  const rangeNums = (dateFrom: Day, dateTo: Day): number[] => {
    const out: number[] = [];
    const last = Math.min(dayNumber(dateTo) - 1, todayNum);
    for (let n = Math.max(dayNumber(dateFrom), firstNum); n <= last; n++) out.push(n);
    return out;
  };
  const inRange = (dateFrom: Day, dateTo: Day): DayStreams[] =>
    rangeNums(dateFrom, dateTo).flatMap((n) => dayStreams(n) ?? []);
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

  // What the test hooks changed. `version` grows with every change; the range caches below key on it.
  let version = 0;
  const changedStatus = new Map<string, FeedbackStatus>();
  const changedDays = new Set<number>();
  const appended = new Map<string, { turns: AssistantTurn[]; replyMs: number[] }>();
  const now = () => version;

  // Feedback items: a day's come from the day's cells and a (seed, day) stream of their own.
  const itemDays = new Map<number, readonly FeedbackItem[]>();
  const dayItems = (n: number): readonly FeedbackItem[] => {
    let items = itemDays.get(n);
    if (!items) {
      const d = dayStreams(n);
      const day = dayFromNumber(n);
      const random = mulberry32(mixSeed(src.seed, n, 0xfeed));
      items = d ? generateFeedbackEvents(day, d.feedback, random, src.fraction(day)) : [];
      itemDays.set(n, items);
    }
    return items;
  };
  const undated = generateUndatedFeedback(src.seed, src.paths);
  const current = (f: FeedbackItem): FeedbackItem => {
    const status = changedStatus.get(f.id);
    return status === undefined || status === f.status ? f : { ...f, status };
  };
  /** A day's cells with statuses as they are now: recounted from its items once a status changed. */
  const dayCells = (n: number, d: DayStreams): readonly FeedbackCells[] => {
    if (!changedDays.has(n)) return d.feedback;
    const byPath = new Map<string, number[]>();
    for (const f of dayItems(n).map(current)) {
      const cells = byPath.get(f.path) ?? new Array<number>(d.feedback[0]?.cells.length ?? 0).fill(0);
      const i = feedbackKind(f) * FEEDBACK_STATUSES.length + FEEDBACK_STATUSES.indexOf(f.status);
      cells[i] = (cells[i] ?? 0) + 1;
      byPath.set(f.path, cells);
    }
    return d.feedback.map((r) => ({ path: r.path, cells: byPath.get(r.path) ?? r.cells.map(() => 0) }));
  };
  const feedback = cached((f: Day, t: Day) => {
    const days = rangeNums(f, t).flatMap((n) => {
      const d = dayStreams(n);
      return d ? [dayCells(n, d)] : [];
    });
    return days.length === 1 && days[0] ? days[0] : aggregateFeedback(days);
  }, now);
  const datedItems = (f: Day, t: Day): FeedbackItem[] =>
    rangeNums(f, t).flatMap((n) => dayItems(n).map(current));
  const allFeedbackEvents = cached(
    (f: Day, t: Day) => [
      ...datedItems(f, t).sort(compareFeedback),
      ...undated.map(current).sort(compareFeedback),
    ],
    now,
  );
  const feedbackEvents = (f: Day, t: Day, filter?: FeedbackFilter) => {
    const all = allFeedbackEvents(f, t);
    return filter ? all.filter((item) => matchesFeedbackFilter(item, filter)) : all;
  };
  const findItem = (id: string): { item: FeedbackItem; n?: number } | undefined => {
    const u = undated.find((f) => f.id === id);
    if (u) return { item: u };
    const m = /^fb_(\d{4})(\d{2})(\d{2})_\d{4}$/.exec(id);
    if (!m) return undefined;
    const n = dayNumber(`${m[1]}-${m[2]}-${m[3]}`);
    if (!(n >= firstNum && n <= todayNum)) return undefined;
    const item = dayItems(n).find((f) => f.id === id);
    return item && { item, n };
  };
  const setFeedbackStatus = (ids: readonly string[], status: FeedbackStatus): void => {
    if (!FEEDBACK_STATUSES.includes(status)) throw new RangeError(`unknown feedback status "${status}"`);
    const found = ids.map((id) => {
      const hit = findItem(id);
      if (!hit) throw new RangeError(`no feedback item "${id}"`);
      return hit;
    });
    for (const { item, n } of found) {
      changedStatus.set(item.id, status);
      if (n !== undefined) changedDays.add(n);
    }
    version++;
  };
  const triageFeedback = (opts: TriageOptions): string[] => {
    const to = opts.to ?? 'resolved';
    if (!Number.isSafeInteger(opts.count) || opts.count < 0) {
      throw new RangeError(`count must be an integer >= 0, got ${opts.count}`);
    }
    const ids = datedItems(opts.dateFrom, opts.dateTo)
      .filter((f) => f.status !== to)
      .map((f) => f.id)
      .sort()
      .slice(0, opts.count);
    if (ids.length > 0) setFeedbackStatus(ids, to);
    return ids;
  };

  // Assistant threads, by the day of their first turn; a thread may end on the next day.
  const emptyNum = dayNumber(edgeDays.empty);
  const threadDays = new Map<number, readonly ThreadDraft[]>();
  const dayThreads = (n: number): readonly ThreadDraft[] => {
    if (n < firstNum || n > todayNum) return [];
    let threads = threadDays.get(n);
    if (!threads) {
      const day = dayFromNumber(n);
      const input = {
        day,
        paths: src.paths,
        fraction: src.fraction(day),
        empty: n === emptyNum,
        noCrossing: n + 1 === emptyNum,
      };
      threads = generateAssistantDay(input, mulberry32(mixSeed(src.seed, n, 0xa551)));
      threadDays.set(n, threads);
    }
    return threads;
  };
  const withAppended = (t: ThreadDraft): ThreadDraft => {
    const extra = appended.get(t.id);
    return extra
      ? { id: t.id, turns: [...t.turns, ...extra.turns], replyMs: [...t.replyMs, ...extra.replyMs] }
      : t;
  };
  const findThread = (threadId: string): ThreadDraft | undefined => {
    const id = threadId.toUpperCase();
    const ms = ulidTime(id);
    if (ms === undefined) return undefined;
    const thread = dayThreads(Math.floor(ms / 86_400_000)).find((t) => t.id === id);
    return thread && withAppended(thread);
  };
  // Questions the docs answer since a fix (lower case -> from, epoch ms).
  const fixes = new Map<string, number>();
  const afterFixes = (turn: AssistantTurn): AssistantTurn => {
    const from = fixes.get(turn.query.toLowerCase());
    return from === undefined || turn.resolutionStatus !== 'unanswered' || Date.parse(turn.timestamp) < from
      ? turn
      : answeredAfterFix(turn);
  };
  const fixQuestion = (question: string, fromMs: number): void => {
    fixes.set(question.toLowerCase(), fromMs);
    version++;
  };
  const assistantTurns = cached((f: Day, t: Day) => {
    const lo = dayNumber(f) * 86_400_000;
    const hi = dayNumber(t) * 86_400_000;
    const inside = (turn: AssistantTurn) => {
      const at = Date.parse(turn.timestamp);
      return at >= lo && at < hi;
    };
    const out: AssistantTurn[] = [];
    const seen = new Set<string>();
    // Threads last less than a day: those of the day before the range may reach into it.
    for (let n = Math.max(dayNumber(f) - 1, firstNum); n <= Math.min(dayNumber(t) - 1, todayNum); n++) {
      for (const thread of dayThreads(n)) {
        seen.add(thread.id);
        out.push(...withAppended(thread).turns.filter(inside));
      }
    }
    for (const [id, extra] of appended) if (!seen.has(id)) out.push(...extra.turns.filter(inside));
    return out.map(afterFixes).sort(compareTurns);
  }, now);
  const appendAssistantTurn = (threadId: string, at: string): AssistantTurn => {
    const thread = findThread(threadId);
    if (!thread) throw new RangeError(`no assistant thread "${threadId}"`);
    const ms = Date.parse(at);
    const last = threadBody(thread).messages.at(-1)?.createdAt ?? '';
    const end = (todayNum + src.fraction(src.today)) * 86_400_000;
    if (!(Number.isFinite(ms) && ms > Date.parse(last) && ms < end)) {
      throw new RangeError(
        `a new turn of ${thread.id} must come after its last message (${last}) and before ${new Date(end).toISOString()}, got "${at}"`,
      );
    }
    const { turn, replyMs } = appendedTurn(src.seed, src.paths, thread, ms);
    const extra = appended.get(thread.id) ?? { turns: [], replyMs: [] };
    extra.turns.push(turn);
    extra.replyMs.push(replyMs);
    appended.set(thread.id, extra);
    version++;
    return copyTurn(turn);
  };

  return {
    edgeDays,
    views,
    searches,
    callerStats,
    feedback,
    feedbackEvents,
    feedbackUndated: () => undated.map(current),
    setFeedbackStatus,
    triageFeedback,
    assistantTurns,
    assistantThread: (threadId) => {
      const thread = findThread(threadId);
      return thread && threadBody(thread);
    },
    assistantThreadIds: (f, t) => [...new Set(assistantTurns(f, t).map((turn) => turn.id))].sort(),
    appendAssistantTurn,
    fixQuestion,
  };
}

/**
 * Remembers the 64 most recently built ranges, so paging through one does not rebuild it per
 * page; `version` (the test hooks' change count) is part of the key, so a change rebuilds.
 */
function cached<T>(
  build: (dateFrom: Day, dateTo: Day) => T,
  version: () => number = () => 0,
): (dateFrom: Day, dateTo: Day) => T {
  const cache = new Map<string, T>();
  return (dateFrom, dateTo) => {
    const key = `${version()}|${dateFrom}|${dateTo}`;
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
