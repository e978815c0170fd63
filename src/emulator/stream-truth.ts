import type { AssistantThreadBody, AssistantTurn } from './assistant.js';
import { copyTurn } from './assistant.js';
import type { CallerStats } from './caller-stats.js';
import type { Day } from './days.js';
import { addDays } from './days.js';
import type { FeedbackFilter, FeedbackRow } from './feedback-by-page.js';
import { FEEDBACK_MAX_LIMIT, feedbackPage, feedbackRows } from './feedback-by-page.js';
import type { FeedbackItem } from './feedback-events.js';
import { copyFeedback } from './feedback-events.js';
import type { SearchRow } from './searches.js';
import { toSearchRow } from './searches.js';
import type { StreamEdgeDays, Streams } from './streams.js';
import type { Totals, PageRow } from './page-counts.js';

export interface ViewsTruth {
  totals: Totals;
  views: PageRow[];
}

export interface SearchesTruth {
  searches: SearchRow[];
  totalSearches: number;
}

export interface FeedbackTruth {
  feedback: FeedbackRow[];
  hasMore: boolean;
}

/**
 * The day streams' ground truth, per endpoint: what a complete fetch must yield. The `day`
 * accessors take one day; the `...Range` ones take [dateFrom, dateTo) as the endpoints do.
 * Every call returns fresh copies, so a test that edits what it got cannot change the truth.
 */
export interface StreamGroundTruth {
  readonly streamEdgeDays: StreamEdgeDays;
  /** Every view row of the day (all pages of GET /views) and the site totals. */
  views(day: Day): ViewsTruth;
  viewsRange(dateFrom: Day, dateTo: Day): ViewsTruth;
  /** Every search row of the day (all cursor pages of GET /searches, concatenated) and totalSearches. */
  searches(day: Day): SearchesTruth;
  searchesRange(dateFrom: Day, dateTo: Day): SearchesTruth;
  callerStats(day: Day): CallerStats;
  callerStatsRange(dateFrom: Day, dateTo: Day): CallerStats;
  /** The most GET /feedback/by-page can yield for the day: the first 100 rows, and hasMore when there are more. */
  feedbackByPage(day: Day): FeedbackTruth;
  /** Every page with feedback in the range, those no request can fetch included. */
  feedbackPages(dateFrom: Day, dateTo: Day, filter?: FeedbackFilter): FeedbackRow[];
  /**
   * Exactly the items a complete cursor sequence of GET /feedback over [dateFrom, dateTo)
   * returns, in the served order: the dated items of the range (createdAt desc, then id),
   * then the undated ones (served in every range), statuses as they are now.
   */
  feedbackEvents(dateFrom: Day, dateTo: Day, filter?: FeedbackFilter): FeedbackItem[];
  /** The items with createdAt null. */
  feedbackUndated(): FeedbackItem[];
  /** Every turn GET /assistant serves for [dateFrom, dateTo), ordered by thread id then timestamp. */
  assistantTurns(dateFrom: Day, dateTo: Day): AssistantTurn[];
  /** GET /assistant/threads/{threadId}, or undefined when the thread does not exist (a 404). */
  assistantThread(threadId: string): AssistantThreadBody | undefined;
  /** The ids of the threads with a turn in [dateFrom, dateTo), sorted. */
  assistantThreadIds(dateFrom: Day, dateTo: Day): string[];
}

export function streamGroundTruth(streams: Streams): StreamGroundTruth {
  const viewsRange = (f: Day, t: Day): ViewsTruth => {
    const r = streams.views(f, t);
    return { totals: { ...r.totals }, views: r.views.map((v) => ({ ...v })) };
  };
  const searchesRange = (f: Day, t: Day): SearchesTruth => {
    const r = streams.searches(f, t);
    return { searches: r.terms.map(toSearchRow), totalSearches: r.totalSearches };
  };
  const callerStatsRange = (f: Day, t: Day): CallerStats => ({ ...streams.callerStats(f, t) });
  const feedbackPages = (f: Day, t: Day, filter?: FeedbackFilter) =>
    feedbackRows(streams.feedback(f, t), filter);
  return {
    streamEdgeDays: streams.edgeDays,
    views: (day) => viewsRange(day, addDays(day, 1)),
    viewsRange,
    searches: (day) => searchesRange(day, addDays(day, 1)),
    searchesRange,
    callerStats: (day) => callerStatsRange(day, addDays(day, 1)),
    callerStatsRange,
    feedbackByPage: (day) => feedbackPage(feedbackPages(day, addDays(day, 1)), FEEDBACK_MAX_LIMIT),
    feedbackPages,
    feedbackEvents: (f, t, filter) => streams.feedbackEvents(f, t, filter).map(copyFeedback),
    feedbackUndated: () => streams.feedbackUndated().map(copyFeedback),
    assistantTurns: (f, t) => streams.assistantTurns(f, t).map(copyTurn),
    assistantThread: (threadId) => {
      const body = streams.assistantThread(threadId);
      return body && { ...body, messages: body.messages.map((m) => ({ ...m })) };
    },
    assistantThreadIds: (f, t) => streams.assistantThreadIds(f, t),
  };
}
