import type {
  AssistantSection,
  FeedbackSection,
  UniquePeriod,
  CallerDay,
  CallersSection,
  DailyPoint,
  PageTrend,
  ProjectReport,
  ReportData,
  SearchSection,
  SearchTerm,
  ViewsSection,
  WeekRow,
} from '../../src/report/model.js';
import { addDays, dayRange } from '../../src/util/day.js';

/** A hand-made report model for renderer tests: no database, every number chosen. */
export function makeDaily(day: string, total: number, overrides: Partial<DailyPoint> = {}): DailyPoint {
  const human = Math.round(total * 0.8);
  const ai = total - human + 10;
  return {
    day,
    human,
    ai,
    total,
    partial: false,
    aiShare: ai / (human + ai),
    human7dAvg: human,
    ai7dAvg: ai,
    total7dAvg: total,
    total28dAvg: total,
    avg7dDays: 7,
    humanWowPct: 0.1,
    aiWowPct: -0.05,
    totalWowPct: 0.125,
    ...overrides,
  };
}

export function makePage(rank: number, path: string, now: number, before: number): PageTrend {
  return {
    rank,
    path,
    humanVisitorDays7d: Math.round(now * 0.7),
    aiVisitorDays7d: Math.round(now * 0.3),
    totalVisitorDays7d: now,
    totalVisitorDaysPrev7d: before,
    change: now - before,
    changePct: before > 0 ? (now - before) / before : null,
    aiShare7d: 0.3,
  };
}

export function makeWeek(weekStart: string, isoWeek: number, total: number, days = 7): WeekRow {
  return {
    isoYear: 2026,
    isoWeek,
    weekStart,
    days,
    humanVisitorDays: Math.round(total * 0.8),
    aiVisitorDays: Math.round(total * 0.25),
    totalVisitorDays: total,
    totalVisitorDaysChangePct: 0.05,
    hasPartialDay: false,
    complete: days === 7,
    comparable: days === 7,
  };
}

export interface ModelOptions {
  readonly projectId?: string;
  readonly days?: number;
  readonly to?: string;
  /** Days (YYYY-MM-DD) left out of the daily series. */
  readonly missing?: readonly string[];
  readonly pages?: readonly PageTrend[];
  readonly totals?: (i: number) => number;
}

export function makeProject(opts: ModelOptions = {}): ProjectReport {
  const days = opts.days ?? 28;
  const to = opts.to ?? '2026-03-01';
  const from = addDays(to, -(days - 1));
  const totals = opts.totals ?? ((i: number) => 1000 + i * 10);
  const daily = dayRange(from, addDays(to, 1))
    .map((day, i) => makeDaily(day, totals(i)))
    .filter((d) => !(opts.missing ?? []).includes(d.day));
  const latest = daily.at(-1) ?? makeDaily(to, 0);
  const pages = opts.pages ?? [
    makePage(1, '/introduction', 5000, 4000),
    makePage(2, '/quickstart', 3000, 3100),
    makePage(3, '/guides/new-page', 800, 0),
  ];
  const period = (a: string, b: string, total: number, daysLoaded = 7) => ({
    from: a,
    to: b,
    daysLoaded,
    humanVisitorDays: Math.round(total * 0.8),
    aiVisitorDays: Math.round(total * 0.25),
    totalVisitorDays: total,
    aiShare: 0.25 / 1.05,
  });
  return {
    projectId: opts.projectId ?? 'docs-main',
    coverage: { firstDay: '2025-12-01', lastDay: to, daysLoaded: 91, missingDays: 0, partialDays: 0 },
    window: { from, to, days, daysLoaded: daily.length },
    daily,
    latest,
    windowTotals: period(
      from,
      to,
      daily.reduce((s, d) => s + d.total, 0),
      daily.length,
    ),
    last7: period(addDays(to, -6), to, 8400),
    prev7: period(addDays(to, -13), addDays(to, -7), 8000),
    comparable: true,
    pagesComparable: true,
    last7Change: 0.05,
    weekly: [
      makeWeek('2026-02-02', 6, 7000),
      makeWeek('2026-02-09', 7, 7350),
      makeWeek('2026-02-16', 8, 7500),
      makeWeek('2026-02-23', 9, 7700),
    ],
    topPages: pages,
    moversUp: pages.filter((p) => (p.change ?? 0) > 0).sort((a, b) => (b.change ?? 0) - (a.change ?? 0)),
    moversDown: pages.filter((p) => (p.change ?? 0) < 0).sort((a, b) => (a.change ?? 0) - (b.change ?? 0)),
  };
}

export function makeReport(projects: readonly ProjectReport[] = [makeProject()]): ReportData {
  return { generatedAt: '2026-03-02T06:00:00.000Z', days: projects[0]?.window.days ?? 28, projects };
}

/** A views section over the last `days` days to `to`: total 2000 + 10 i, human 3/4 of it. */
export function makeViews(to = '2026-03-01', days = 28): ViewsSection {
  const daily = dayRange(addDays(to, -(days - 1)), addDays(to, 1)).map((day, i) => {
    const total = 2000 + 10 * i;
    return {
      day,
      human: (total * 3) / 4,
      ai: total / 4,
      total,
      total7dAvg: i >= 6 ? total - 30 : null,
      totalWowPct: 0.04,
      viewsPerVisitor: 2.5,
    };
  });
  const latest = daily.at(-1) ?? daily[0];
  if (!latest) throw new Error('no day');
  return {
    daily,
    latest,
    last7: { from: addDays(to, -6), to, daysLoaded: 7, views: 15000 },
    prev7: { from: addDays(to, -13), to: addDays(to, -7), daysLoaded: 7, views: 12000 },
    last7Change: 0.25,
    viewsPerVisitor7d: 2.25,
    topPages: [
      { rank: 1, path: '/introduction', views7d: 4000, viewsPrev7d: 3200, changePct: 0.25 },
      { rank: 2, path: '/guides/new', views7d: 900, viewsPrev7d: 0, changePct: null },
    ],
  };
}

export function makeTerm(
  query: string,
  hits7d: number,
  ctr: number,
  overrides: Partial<SearchTerm> = {},
): SearchTerm {
  return {
    query,
    hits7d,
    hitsPrev7d: hits7d / 2,
    hitsChangePct: 1,
    ctr7d: ctr,
    hits28d: hits7d * 4,
    ctr28d: ctr,
    zeroClickShare28d: ctr === 0 ? 1 : 0,
    topClickedPath: null,
    ...overrides,
  };
}

export function makeSearches(terms: readonly SearchTerm[], lastDay = '2026-03-01'): SearchSection {
  return {
    lastDay,
    daysLoaded7d: 7,
    daysLoadedPrev7d: 7,
    daysLoaded28d: 28,
    truncatedDays28d: 0,
    searches7d: terms.reduce((s, t) => s + t.hits7d, 0) + 10,
    ctr28d: 0.4,
    topTerms: terms,
    gapMinHits: 20,
    gaps: terms.filter((t) => (t.ctr28d ?? 1) < 0.4 && t.hits28d >= 20),
  };
}

function callerDay(day: string, web: number, api: number, other: number): CallerDay {
  const total = web + api + other;
  return {
    day,
    web,
    api,
    other,
    total,
    webShare: web / total,
    apiShare: api / total,
    otherShare: other / total,
  };
}

/** Callers over the last `days` days to `to`: web 60, API 30, other 10 every day. */
export function makeCallers(to = '2026-03-01', days = 28): CallersSection {
  const daily = dayRange(addDays(to, -(days - 1)), addDays(to, 1)).map((day) => callerDay(day, 60, 30, 10));
  const latest = daily.at(-1) ?? callerDay(to, 60, 30, 10);
  return {
    daily,
    latest,
    last7: { ...callerDay(addDays(to, -6), 420, 210, 70), to, daysLoaded: 7 },
  };
}

/** A feedback section: `n` open items with the given comments, 4 weeks of thumbs. */
export function makeFeedback(
  comments: readonly (string | null)[],
  opts: { personalData?: boolean; openCount?: number } = {},
): FeedbackSection {
  const weekly = ['2026-02-02', '2026-02-09', '2026-02-16', '2026-02-23'].map((weekStart, i) => ({
    weekStart,
    isoYear: 2026,
    isoWeek: 6 + i,
    daysLoaded: 7,
    up: 30 + i,
    down: 10,
    helpfulShare: (30 + i) / (40 + i),
  }));
  const up = weekly.reduce((s, w) => s + w.up, 0);
  return {
    openCount: opts.openCount ?? comments.length,
    pendingCount: opts.openCount ?? comments.length,
    inProgressCount: 0,
    openPages: 1,
    open: comments.map((comment, i) => ({
      id: `fb-${i}`,
      path: `/guides/page-${i}`,
      source: 'contextual',
      status: i % 2 === 0 ? 'pending' : 'in_progress',
      comment,
      createdAt: '2026-02-01T10:00:00.000Z',
      ageDays: 28 - i,
      pageOpen: 1,
      ...(opts.personalData ? { contact: `reader${i}@example.com` } : {}),
    })),
    weekly,
    up,
    down: 40,
    helpfulShare: up / (up + 40),
    personalData: opts.personalData === true,
  };
}

/** An assistant section over the last `days` days to `to`: 100 turns a day, 80 answered, 5 clarifying. */
export function makeAssistant(
  questions: readonly string[],
  to = '2026-03-01',
  days = 7,
  daysLoaded7 = 7,
): AssistantSection {
  const daily = dayRange(addDays(to, -(days - 1)), addDays(to, 1)).map((day) => ({
    day,
    turns: 100,
    answered: 80,
    clarifying: 5,
    answeredShare: 0.8,
    clarifyingShare: 0.05,
  }));
  const latest = daily.at(-1) ?? daily[0];
  if (!latest) throw new Error('no day');
  const period = (from: string, n: number) => ({
    from,
    to,
    daysLoaded: n,
    turns: 100 * n,
    answered: 80 * n,
    clarifying: 5 * n,
    unanswered: 20 * n,
    answeredShare: 0.8,
    clarifyingShare: 0.05,
  });
  return {
    daily,
    latest,
    last7: period(addDays(to, -6), daysLoaded7),
    window: period(addDays(to, -(days - 1)), days),
    unanswered: questions.map((query, i) => ({
      query,
      count: 20 - i,
      threads: 18 - i,
      lastAsked: `${to}T09:00:00.000Z`,
    })),
    unansweredDistinct: questions.length + 5,
  };
}

export function makeUnique(periodStart: string, label: string, total: number, partial = false): UniquePeriod {
  return {
    periodStart,
    label,
    human: Math.round(total * 0.7),
    ai: Math.round(total * 0.35),
    total,
    partial,
    previousTotal: partial ? null : 1000,
    totalChangePct: partial ? null : (total - 1000) / 1000,
  };
}
