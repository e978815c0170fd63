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
  readonly totalVisitorDaysPrev7d: number;
  readonly change: number;
  /** Fraction (0.25 = +25%); null when the previous 7 days had 0. */
  readonly changePct: number | null;
  /** AI / (human + AI) visitor-days. */
  readonly aiShare7d: number | null;
}

/** Sums over a run of days, as visitor-days. */
export interface PeriodTotals {
  readonly from: Day;
  /** Inclusive. */
  readonly to: Day;
  readonly daysLoaded: number;
  readonly humanVisitorDays: number;
  readonly aiVisitorDays: number;
  readonly totalVisitorDays: number;
  readonly aiShare: number | null;
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
  /** Fraction (0.25 = +25%) of total visitor-days against the 7 days before; null when those are 0. */
  readonly last7Change: number | null;
  readonly weekly: readonly WeekRow[];
  readonly topPages: readonly PageTrend[];
  readonly moversUp: readonly PageTrend[];
  readonly moversDown: readonly PageTrend[];
}

export interface ReportData {
  /** ISO timestamp of when the report was built. */
  readonly generatedAt: string;
  readonly days: number;
  readonly projects: readonly ProjectReport[];
}

/**
 * One value per calendar day of the report window, null for a day that is not loaded: charts
 * and sparklines must show a gap there, not join the neighbouring days.
 */
export function calendarSeries<T>(p: ProjectReport, pick: (d: DailyPoint) => T): (T | null)[] {
  const byDay = new Map(p.daily.map((d) => [d.day, d]));
  return dayRange(p.window.from, addDays(p.window.to, 1)).map((day) => {
    const d = byDay.get(day);
    return d ? pick(d) : null;
  });
}
