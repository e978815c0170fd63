import type { Gap, GapOutcome } from '../insights/gaps.js';
import type { EventStreamSection } from '../insights/event-stream.js';
import { addDays, dayRange, type Day } from '../util/day.js';

/**
 * What the report shows, gathered with SQL over the views (v_site_daily, v_site_weekly,
 * v_page_trends, v_coverage). Daily unique visitors are not additive: any sum over days is
 * named `*VisitorDays`, never visitors.
 */
export interface DailyPoint {
  readonly day: Day;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
  readonly partial: boolean;
  /** ai / (human + ai), 0..1 (as v_site_daily); null when both are 0. */
  readonly aiShare: number | null;
  /**
   * Means over the 7 (28) calendar days to this one; null unless every one of those days is
   * loaded (and, for 7, none partial): over fewer days the line ramps up from the first day's
   * value after a first sync and mixes weekdays unevenly around a gap.
   */
  readonly human7dAvg: number | null;
  readonly ai7dAvg: number | null;
  readonly total7dAvg: number | null;
  readonly total28dAvg: number | null;
  /** Loaded days in the 7 calendar days to this one (v_site_daily.avg_7d_days). */
  readonly avg7dDays: number;
  /** Fractions (0.25 = +25%) against the same weekday a week earlier; null when that day is missing or 0. */
  readonly humanWowPct: number | null;
  readonly aiWowPct: number | null;
  readonly totalWowPct: number | null;
}

export interface WeekRow {
  readonly isoYear: number;
  readonly isoWeek: number;
  readonly weekStart: Day;
  /** Days of the week loaded; fewer than 7 makes the week's sums incomparable. */
  readonly days: number;
  readonly humanVisitorDays: number;
  readonly aiVisitorDays: number;
  readonly totalVisitorDays: number;
  /** Fraction against the previous ISO week. */
  readonly totalVisitorDaysChangePct: number | null;
  readonly hasPartialDay: boolean;
  /** All 7 days loaded and none partial (v_site_weekly.complete). */
  readonly complete: boolean;
  /**
   * This week and the one before are both 7 complete days: only then does the change compare
   * like with like (a sum over 6 days against one over 7 shows a drop that never happened).
   */
  readonly comparable: boolean;
}

export interface PageTrend {
  readonly rank: number;
  readonly path: string;
  readonly humanVisitorDays7d: number;
  readonly aiVisitorDays7d: number;
  readonly totalVisitorDays7d: number;
  /** null unless both 7-day periods are whole (ProjectReport.pagesComparable). */
  readonly totalVisitorDaysPrev7d: number | null;
  /** null unless both 7-day periods are whole (ProjectReport.pagesComparable). */
  readonly change: number | null;
  /** Fraction (0.25 = +25%); null when the previous 7 days had 0 or either period is not whole. */
  readonly changePct: number | null;
  /** AI / (human + AI) visitor-days. */
  readonly aiShare7d: number | null;
}

/**
 * Sums over a run of days, as visitor-days. With no day of the run loaded the sums are null and
 * `notLoaded` says why: a 0 would read as a week nobody visited.
 */
export interface PeriodTotals {
  readonly from: Day;
  /** Inclusive. */
  readonly to: Day;
  readonly daysLoaded: number;
  readonly humanVisitorDays: number | null;
  readonly aiVisitorDays: number | null;
  readonly totalVisitorDays: number | null;
  readonly aiShare: number | null;
  /** Present only when daysLoaded is 0. */
  readonly notLoaded?: string;
}

export interface ProjectReport {
  readonly projectId: string;
  readonly coverage: {
    readonly firstDay: Day;
    readonly lastDay: Day;
    readonly daysLoaded: number;
    readonly missingDays: number;
    readonly partialDays: number;
  };
  /**
   * The calendar days the report covers: the last `--days` days up to the last loaded day, cut at
   * the first loaded day (so `days` may be fewer than asked for).
   */
  readonly window: {
    readonly from: Day;
    readonly to: Day;
    readonly days: number;
    readonly daysLoaded: number;
  };
  /** Loaded days inside the window, ascending; missing days are absent. */
  readonly daily: readonly DailyPoint[];
  readonly latest: DailyPoint;
  /** Sums over the whole window (averages per day are these over window.daysLoaded). */
  readonly windowTotals: PeriodTotals;
  readonly last7: PeriodTotals;
  readonly prev7: PeriodTotals;
  /**
   * Whether last7 and prev7 are both whole: every day in a visitors window fetched after it ended.
   * Only then is anything compared (last7Change, the period table's change); after a first sync
   * the 7 days before hold a few days or none, and a change against them would be invented.
   */
  readonly comparable: boolean;
  /** comparable, and no page cap cut either period's page rows: only then do pages show a change and movers. */
  readonly pagesComparable: boolean;
  /** Fraction (0.25 = +25%) of total visitor-days against the 7 days before; null when those are 0 or not comparable. */
  readonly last7Change: number | null;
  readonly weekly: readonly WeekRow[];
  readonly topPages: readonly PageTrend[];
  /** Empty unless pagesComparable: a page cannot move against days never loaded. */
  readonly moversUp: readonly PageTrend[];
  readonly moversDown: readonly PageTrend[];
  /** Present only when the views stream is loaded for the project (see streams.ts). */
  readonly views?: ViewsSection;
  /** Present only when the searches stream is loaded. */
  readonly searches?: SearchSection;
  /** Present only when the caller_stats stream is loaded. */
  readonly callers?: CallersSection;
  /** Present only when the project has a loaded `feedback` window. */
  readonly feedback?: FeedbackSection;
  /** Present only when the project has a loaded `assistant` window. */
  readonly assistant?: AssistantSection;
  /** Present only when site_weekly or site_monthly hold rows of the project (visitors_weekly / _monthly). */
  readonly uniques?: UniquesSection;
  /** Present only when the project has a content gap in the window or a measured fix. */
  readonly gaps?: GapsSection;
  /** The event stream (sync --events): only when the project has events loaded. */
  readonly eventStream?: EventStreamSection;
}

/** The top content gaps of the report's window, and the effect of the fixes made. */
export interface GapsSection {
  readonly gaps: readonly Gap[];
  readonly outcomes: readonly GapOutcome[];
}

/** One open feedback item (pending or in progress). */
export interface FeedbackItem {
  readonly id: string;
  readonly path: string;
  /** contextual | code_snippet | agent | thumbs_only */
  readonly source: string;
  readonly status: string;
  /** As the API gave it (user input: shown inert in a terminal, escaped in HTML). */
  readonly comment: string | null;
  /** ISO timestamp in UTC; null when the API gave none. */
  readonly createdAt: string | null;
  /** Whole days from createdAt to when the report was built; null without createdAt. */
  readonly ageDays: number | null;
  /** Open items on the same page, this one included. */
  readonly pageOpen: number;
  /**
   * An email address: PERSONAL DATA. The key is present only with --include-personal-data;
   * without it the column is never even read from the database.
   */
  readonly contact?: string | null;
}

/** Thumbs of the contextual feedback created in one ISO week (Monday to Sunday, UTC). */
export interface FeedbackWeek {
  readonly weekStart: Day;
  readonly isoYear: number;
  readonly isoWeek: number;
  /** Days of the week inside a loaded feedback window; fewer than 7 leave votes out. */
  readonly daysLoaded: number;
  readonly up: number;
  readonly down: number;
  /** up / (up + down); null without votes. */
  readonly helpfulShare: number | null;
}

export interface FeedbackSection {
  /** Open items of the project (every loaded item, whatever its date). */
  readonly openCount: number;
  readonly pendingCount: number;
  readonly inProgressCount: number;
  /** Pages with at least one open item. */
  readonly openPages: number;
  /** The oldest open items first (items without a date last), at most `topFeedback`. */
  readonly open: readonly FeedbackItem[];
  /** ISO weeks that meet the report window and a loaded feedback window, ascending. */
  readonly weekly: readonly FeedbackWeek[];
  /** Thumbs of those weeks together. */
  readonly up: number;
  readonly down: number;
  readonly helpfulShare: number | null;
  /** Whether contacts were asked for (--include-personal-data): only then may items carry them. */
  readonly personalData: boolean;
}

/** Assistant turns of one complete day (a day inside a loaded window, fetched after it ended). */
export interface AssistantDay {
  readonly day: Day;
  readonly turns: number;
  readonly answered: number;
  readonly clarifying: number;
  /** answered / turns; null when there is no turn. */
  readonly answeredShare: number | null;
  /** clarifying questions / turns; null when there is no turn. */
  readonly clarifyingShare: number | null;
}

/** Turns summed over a run of days: turns are events, they add up. */
export interface AssistantPeriod {
  readonly from: Day;
  readonly to: Day;
  readonly daysLoaded: number;
  readonly turns: number;
  readonly answered: number;
  readonly clarifying: number;
  readonly unanswered: number;
  readonly answeredShare: number | null;
  readonly clarifyingShare: number | null;
}

/** One unanswered question, grouped case- and whitespace-insensitively. */
export interface UnansweredQuestion {
  /** The most frequent spelling of the group (user input). */
  readonly query: string;
  readonly count: number;
  /** Distinct threads it was asked in. */
  readonly threads: number;
  readonly lastAsked: string;
}

export interface AssistantSection {
  /** Complete days of the report window with a loaded assistant window, ascending. */
  readonly daily: readonly AssistantDay[];
  readonly latest: AssistantDay;
  readonly last7: AssistantPeriod;
  readonly window: AssistantPeriod;
  /** Unanswered questions of the report window, most frequent first. */
  readonly unanswered: readonly UnansweredQuestion[];
  /** Distinct unanswered questions in the window, listed or not. */
  readonly unansweredDistinct: number;
}

/** True unique visitors of one ISO week or calendar month (one request for the whole period). */
export interface UniquePeriod {
  readonly periodStart: Day;
  /** 2026-W09 or 2026-02. */
  readonly label: string;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
  /** The period was not over when fetched. */
  readonly partial: boolean;
  /** Fraction of total against the previous complete period; null when that one is missing, partial or 0, and for a partial period. */
  readonly totalChangePct: number | null;
  /** The previous period's total, when it is loaded and complete. */
  readonly previousTotal: number | null;
}

export interface UniquesSection {
  /** The latest complete week, and the week in progress after it when loaded. */
  readonly week?: UniquePeriod;
  readonly weekPartial?: UniquePeriod;
  readonly month?: UniquePeriod;
  readonly monthPartial?: UniquePeriod;
}

/** Content views of one complete day. Views are events: unlike visitors they add up. */
export interface ViewsDay {
  readonly day: Day;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
  /** Mean of the 7 calendar days to this one; null unless all 7 are loaded and complete. */
  readonly total7dAvg: number | null;
  /** Fraction against the same weekday a week earlier; null when that day is missing or 0. */
  readonly totalWowPct: number | null;
  /** Views / unique visitors of the same day; null when the visitors day is missing, partial or 0. */
  readonly viewsPerVisitor: number | null;
}

export interface ViewsPage {
  readonly rank: number;
  readonly path: string;
  readonly views7d: number;
  readonly viewsPrev7d: number;
  /** Fraction; null when the previous 7 days had 0 or either 7 days are not all loaded. */
  readonly changePct: number | null;
}

/** Views summed over a run of days (they are events, so the sum is a count of views). */
export interface ViewsPeriod {
  readonly from: Day;
  readonly to: Day;
  readonly daysLoaded: number;
  readonly views: number;
}

export interface ViewsSection {
  /** Complete views days inside the report window, ascending; missing and partial days are absent. */
  readonly daily: readonly ViewsDay[];
  readonly latest: ViewsDay;
  /** The 7 days to latest.day and the 7 before. */
  readonly last7: ViewsPeriod;
  readonly prev7: ViewsPeriod;
  /** Fraction; null unless both periods hold 7 days and the earlier one has views. */
  readonly last7Change: number | null;
  /**
   * Views / visitor-days over the last 7 days; null unless all 7 days have both streams complete
   * (a ratio over a different set of days for each side would mean nothing).
   */
  readonly viewsPerVisitor7d: number | null;
  readonly topPages: readonly ViewsPage[];
}

export interface SearchTerm {
  /** As the API gives it: user input, to be shown inert and escaped. */
  readonly query: string;
  /** Hits are searches: they add up over days. */
  readonly hits7d: number;
  readonly hitsPrev7d: number;
  /** Fraction; null unless both 7-day periods are complete (7 days, none truncated) and prev > 0. */
  readonly hitsChangePct: number | null;
  /** Hit-weighted click-through rate, 0..1; null without hits. */
  readonly ctr7d: number | null;
  readonly hits28d: number;
  readonly ctr28d: number | null;
  /** Of the 28 days' hits, the part on days when the term's CTR was 0 (no search for it clicked). */
  readonly zeroClickShare28d: number | null;
  /** The top clicked path of the term's day with the most hits in the 28 days; null when none. */
  readonly topClickedPath: string | null;
}

export interface SearchSection {
  /** The last complete searches day: a partial (today) day is left out. */
  readonly lastDay: Day;
  readonly daysLoaded7d: number;
  readonly daysLoadedPrev7d: number;
  readonly daysLoaded28d: number;
  /** Days of the 28 whose term list a page cap cut short: rarer terms may be missing. */
  readonly truncatedDays28d: number;
  /** All searches of the last 7 days (search_totals_daily), terms beyond the list included. */
  readonly searches7d: number;
  /** Hit-weighted CTR of all listed terms over the 28 days: a gap is a term below it. */
  readonly ctr28d: number | null;
  readonly topTerms: readonly SearchTerm[];
  /** Fewest hits in the 28 days for a term to be judged a docs gap (see GAP_MIN_HITS). */
  readonly gapMinHits: number;
  /** Terms with at least gapMinHits hits in the 28 days and a CTR below ctr28d, lowest CTR first. */
  readonly gaps: readonly SearchTerm[];
}

/** Assistant queries of one complete day by caller; shares are of total, null when it is 0. */
export interface CallerDay {
  readonly day: Day;
  readonly web: number;
  readonly api: number;
  readonly other: number;
  readonly total: number;
  readonly webShare: number | null;
  readonly apiShare: number | null;
  readonly otherShare: number | null;
}

export interface CallersSection {
  /** Complete days inside the report window, ascending. */
  readonly daily: readonly CallerDay[];
  readonly latest: CallerDay;
  /** Sums over the 7 days to latest.day (queries are events: they add up); day is the first. */
  readonly last7: CallerDay & { readonly to: Day; readonly daysLoaded: number };
}

export interface ReportData {
  /** ISO timestamp of when the report was built. */
  readonly generatedAt: string;
  readonly days: number;
  readonly projects: readonly ProjectReport[];
  /**
   * Streams loaded for projects with no visitors days (the report is built around them): said
   * instead of "no data", with the views to query meanwhile.
   */
  readonly withoutVisitors?: readonly string[];
  /**
   * Projects with the event stream loaded (sync --events) and no visitors days: their event-stream
   * section alone, up to their last complete day of events.
   */
  readonly eventOnly?: readonly EventOnlyReport[];
}

export interface EventOnlyReport {
  readonly projectId: string;
  readonly eventStream: EventStreamSection;
}

/** The line under an event-only project's title (the terminal's and the page's). */
export function eventOnlyNote(e: EventOnlyReport): string {
  const s = e.eventStream;
  return `${s.from} to ${s.to} · only the event stream is loaded for this project: the daily, page and stream sections come with the API streams (sync --streams visitors,...)`;
}

/** Whether the report has anything to show: a project with visitors days or with events. */
export function hasReport(data: ReportData): boolean {
  return data.projects.length > 0 || (data.eventOnly?.length ?? 0) > 0;
}

/** Why there is nothing to show: no data at all, or streams loaded without the visitors stream. */
export function emptyReason(data: ReportData): string {
  const others = data.withoutVisitors ?? [];
  if (others.length === 0)
    return 'No data loaded yet: run `mintlify-etl sync` first, then `mintlify-etl report`.';
  return `No visitors days loaded yet (the report is built around them; loaded: ${others.join(', ')}): sync with visitors in --streams, e.g. \`mintlify-etl sync --streams visitors,${others.join(',')}\`; meanwhile query the views (v_feedback_open, v_assistant_daily, v_assistant_unanswered, v_site_weekly, v_site_monthly, ...) with \`mintlify-etl query\`.`;
}

/**
 * One value per calendar day of the report window, null for a day that is not loaded: charts
 * and sparklines must show a gap there, not join the neighbouring days.
 */
export function calendarSeries<T>(p: ProjectReport, pick: (d: DailyPoint) => T): (T | null)[] {
  return windowSeries(p, p.daily, pick);
}

/** calendarSeries for any list of days (views, callers) over the report window. */
export function windowSeries<D extends { readonly day: Day }, T>(
  p: ProjectReport,
  days: readonly D[],
  pick: (d: D) => T,
): (T | null)[] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  return dayRange(p.window.from, addDays(p.window.to, 1)).map((day) => {
    const d = byDay.get(day);
    return d ? pick(d) : null;
  });
}
