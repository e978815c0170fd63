import {
  formatChange,
  formatCount,
  formatIsoWeek,
  formatShare,
  formatSignedCount,
  plural,
} from './format.js';
import {
  calendarSeries,
  type DailyPoint,
  type PageTrend,
  type PeriodTotals,
  type ProjectReport,
  type UniquePeriod,
} from './model.js';
import { addDays } from '../util/day.js';
import { sparkline } from './sparkline.js';

/**
 * The report's tables, independent of the medium: the terminal and the HTML page render the
 * same rows, so they can never disagree on a number.
 */
export type Tone = 'up' | 'down' | 'flat' | 'muted' | 'strong' | 'human' | 'ai' | 'total';

export interface Cell {
  readonly text: string;
  readonly right?: boolean;
  readonly tone?: Tone | undefined;
  /** A page path: the terminal shortens it to fit, HTML wraps it. Full text is kept here. */
  readonly path?: boolean;
  /**
   * Free text from users (a feedback comment, an assistant question), already flattened to one
   * line: the terminal cuts its end to fit, HTML wraps it.
   */
  readonly free?: boolean;
  /** A row label (first column). */
  readonly label?: boolean;
  /** A sparkline: HTML keeps it whole on a narrow screen instead of squeezing it. */
  readonly spark?: boolean;
  /** Says again what another column says: HTML leaves it out on a narrow screen. */
  readonly minor?: boolean;
}

export interface Table {
  readonly id:
    | 'site'
    | 'period'
    | 'weekly'
    | 'top-pages'
    | 'movers'
    | 'views'
    | 'views-pages'
    | 'search-terms'
    | 'search-gaps'
    | 'callers'
    | 'uniques'
    | 'feedback-open'
    | 'feedback-thumbs'
    | 'assistant'
    | 'assistant-unanswered'
    | 'content-gaps'
    | 'fix-outcomes'
    | 'event-visitors'
    | 'event-traffic'
    | 'event-referrers'
    | 'event-funnels';
  readonly title: string;
  readonly head: readonly Cell[];
  readonly rows: readonly (readonly Cell[])[];
  readonly notes: readonly string[];
  /** Shown instead of an empty table. */
  readonly empty?: string;
}

export interface TableOptions {
  /** Most characters a sparkline may take (longer series are averaged down). */
  readonly sparkWidth?: number;
}

/** Green up, red down, flat for no change or nothing to compare with (a change under 0.05%). */
export function changeTone(n: number | null): Tone {
  if (n === null || !Number.isFinite(n) || Math.abs(n) < 0.0005) return 'flat';
  return n > 0 ? 'up' : 'down';
}

export const num = (text: string, tone?: Tone): Cell => ({ text, right: true, tone });
export const change = (fraction: number | null): Cell => num(formatChange(fraction), changeTone(fraction));
export const label = (text: string, tone?: Tone): Cell => ({ text, label: true, tone });
export const head = (text: string, right = true): Cell => ({ text, right, tone: 'muted' });

export function projectTables(p: ProjectReport, opts: TableOptions = {}): Table[] {
  return [
    siteTable(p, opts),
    periodTable(p),
    ...(p.uniques ? [uniquesTable(p)] : []),
    weeklyTable(p),
    topPagesTable(p),
    moversTable(p),
  ];
}

/** Why some numbers of the site table are missing or were left out. */
function siteNotes(p: ProjectReport): string[] {
  const l = p.latest;
  const n = p.window.days;
  const notes: string[] = [];
  const partial = p.coverage.partialDays;
  if (partial > 0) {
    notes.push(
      `${partial === 1 ? '1 day was' : `${partial} days were`} still in progress when loaded (sync --include-today) and ${partial === 1 ? 'is' : 'are'} left out: the report ends on ${p.window.to}, the last complete day${p.coverage.lastDay > p.window.to ? ` (the database holds days up to ${p.coverage.lastDay})` : ''}.`,
    );
  }
  if (l.total7dAvg === null) {
    notes.push(
      `The 7-day average needs 7 complete days loaded; ${l.avg7dDays} of the 7 days to ${l.day} ${l.avg7dDays === 1 ? 'is' : 'are'}.`,
    );
  }
  if (p.window.daysLoaded < n) {
    const gaps = n - p.window.daysLoaded;
    notes.push(
      `${gaps} of the ${plural(n, 'day')} ${gaps === 1 ? 'is' : 'are'} not loaded (gaps in the trend).`,
    );
  }
  return notes;
}

export function siteTable(p: ProjectReport, opts: TableOptions = {}): Table {
  const l = p.latest;
  const n = p.window.days;
  const win = p.windowTotals;
  const avg = (visitorDays: number | null): string =>
    formatCount(visitorDays !== null && win.daysLoaded > 0 ? visitorDays / win.daysLoaded : null);
  const spark = (pick: (d: DailyPoint) => number | null): string =>
    sparkline(calendarSeries(p, pick), opts.sparkWidth ?? Number.POSITIVE_INFINITY);
  const notes = siteNotes(p);
  // A window of 7 days or fewer would repeat the 7-day average (or, at 1 day, the day itself).
  const windowAvg = n > 7;
  const row = (name: Cell, day: Cell, wow: Cell, avg7: Cell, avgN: Cell, trend: Cell): Cell[] =>
    windowAvg ? [name, day, wow, avg7, avgN, trend] : [name, day, wow, avg7, trend];
  return {
    id: 'site',
    title: 'Unique visitors per day',
    head: row(
      head('', false),
      head(l.day),
      head('vs week before'),
      head('7-day avg'),
      head(`${n}-day avg`),
      head(`trend, ${plural(n, 'day')}`, false),
    ),
    rows: [
      row(
        label('total', 'strong'),
        num(formatCount(l.total), 'strong'),
        change(l.totalWowPct),
        num(formatCount(l.total7dAvg)),
        num(avg(win.totalVisitorDays)),
        { text: spark((d) => d.total), tone: 'total', spark: true },
      ),
      row(
        label('human'),
        num(formatCount(l.human)),
        change(l.humanWowPct),
        num(formatCount(l.human7dAvg)),
        num(avg(win.humanVisitorDays)),
        { text: spark((d) => d.human), tone: 'human', spark: true },
      ),
      row(
        label('AI'),
        num(formatCount(l.ai)),
        change(l.aiWowPct),
        num(formatCount(l.ai7dAvg)),
        num(avg(win.aiVisitorDays)),
        { text: spark((d) => d.ai), tone: 'ai', spark: true },
      ),
      row(
        label('AI share'),
        num(formatShare(l.aiShare)),
        num(''),
        num(formatShare(l.total7dAvg === null ? null : p.last7.aiShare)),
        num(formatShare(win.aiShare)),
        { text: spark((d) => d.aiShare), tone: 'ai', spark: true },
      ),
    ],
    notes,
  };
}

function ratio(x: number | null, y: number | null): number | null {
  return x !== null && y !== null && y > 0 ? (x - y) / y : null;
}

/** A period's sum, or "not loaded" for a period of which no day is loaded (never a 0). */
function periodCount(t: PeriodTotals, n: number | null, tone?: Tone): Cell {
  return num(t.daysLoaded === 0 ? NOT_LOADED : formatCount(n), tone);
}

function periodShare(t: PeriodTotals): Cell {
  return num(t.daysLoaded === 0 ? NOT_LOADED : formatShare(t.aiShare));
}

const NOT_LOADED = 'not loaded';

/** Why the pages show no change: the two 7-day periods are not both loaded whole. */
function notComparable(p: ProjectReport): string {
  if (!p.comparable) {
    return `No change is shown: ${p.prev7.daysLoaded} of the 7 days before (${p.prev7.from} to ${p.prev7.to}) are loaded, and a change against days not loaded would be invented (sync --from ${p.prev7.from} loads them).`;
  }
  return 'No change is shown: a page cap (--max-pages) cut the page rows of a day in the two 7-day periods.';
}

/** Why the two periods compare unevenly, and how to load a period that is missing altogether. */
function periodNotes(a: PeriodTotals, b: PeriodTotals): string[] {
  const missing = [a, b].find((t) => t.daysLoaded === 0);
  if (missing) {
    return [
      `No day of ${missing.from} to ${missing.to} is loaded: there is nothing to compare with (sync --from ${missing.from} --to ${addDays(missing.to, 1)} loads it).`,
    ];
  }
  return a.daysLoaded < 7 || b.daysLoaded < 7
    ? [
        `Only ${a.daysLoaded} and ${b.daysLoaded} of 7 days are loaded: no change is shown (it would compare unlike periods).`,
      ]
    : [];
}

export function periodTable(p: ProjectReport): Table {
  const a = p.last7;
  const b = p.prev7;
  const row = (name: string, x: number | null, y: number | null, tone?: Tone): Cell[] => [
    label(name, tone),
    periodCount(a, x, tone),
    periodCount(b, y),
    // Not comparable: "not loaded", unless a column already says so (no day of a period loaded).
    p.comparable ? change(ratio(x, y)) : num(a.daysLoaded * b.daysLoaded === 0 ? '–' : NOT_LOADED, 'muted'),
  ];
  return {
    id: 'period',
    title: 'Last 7 days vs the 7 before, in visitor-days',
    head: [head('', false), head(`${a.from} to ${a.to}`), head(`${b.from} to ${b.to}`), head('change')],
    rows: [
      row('total', a.totalVisitorDays, b.totalVisitorDays, 'strong'),
      row('human', a.humanVisitorDays, b.humanVisitorDays),
      row('AI', a.aiVisitorDays, b.aiVisitorDays),
      [label('AI share'), periodShare(a), periodShare(b), num('')],
    ],
    notes: periodNotes(a, b),
  };
}

export function weeklyTable(p: ProjectReport): Table {
  const incomplete = p.weekly.some((wk) => !wk.complete);
  return {
    id: 'weekly',
    title: 'Weekly (ISO weeks, Monday to Sunday), in visitor-days',
    head: [
      head('week', false),
      head('starts', false),
      head('days'),
      head('human'),
      head('AI'),
      head('total'),
      head('vs previous week'),
    ],
    rows: p.weekly.map((wk) => {
      const short = !wk.complete;
      return [
        label(formatIsoWeek(wk.isoYear, wk.isoWeek)),
        { text: wk.weekStart, tone: 'muted', minor: true },
        num(short ? `${wk.days}*` : String(wk.days), short ? 'muted' : undefined),
        num(formatCount(wk.humanVisitorDays)),
        num(formatCount(wk.aiVisitorDays)),
        num(formatCount(wk.totalVisitorDays), 'strong'),
        wk.comparable ? change(wk.totalVisitorDaysChangePct) : num('–', 'muted'),
      ];
    }),
    notes: incomplete
      ? ['* fewer than 7 complete days loaded: no change is shown for it or the week after it.']
      : [],
    empty: 'no week in the window',
  };
}

function pageChange(t: PageTrend): Cell {
  // null: the 7 days before are not all loaded (a first sync); "new" would be a guess.
  if (t.totalVisitorDaysPrev7d === null) return num(NOT_LOADED, 'muted');
  if (t.totalVisitorDaysPrev7d === 0) return num(t.totalVisitorDays7d > 0 ? 'new' : '–', 'up');
  return change(t.changePct);
}

export function topPagesTable(p: ProjectReport): Table {
  return {
    id: 'top-pages',
    title: `Top pages, last 7 days to ${p.window.to}, in visitor-days`,
    head: [
      head('#'),
      head('path', false),
      head('total'),
      head('human'),
      head('AI'),
      head('AI share'),
      head('vs previous 7'),
    ],
    rows: p.topPages.map((t) => [
      num(String(t.rank), 'muted'),
      { text: t.path, path: true },
      num(formatCount(t.totalVisitorDays7d), 'strong'),
      num(formatCount(t.humanVisitorDays7d)),
      num(formatCount(t.aiVisitorDays7d)),
      num(formatShare(t.aiShare7d)),
      pageChange(t),
    ]),
    notes: p.pagesComparable ? [] : [notComparable(p)],
    empty: 'no page data in the last 7 days',
  };
}

export function moversTable(p: ProjectReport): Table {
  const row = (t: PageTrend): Cell[] => [
    { text: (t.change ?? 0) > 0 ? '↑' : '↓', tone: changeTone(t.change) },
    num(t.change === null ? NOT_LOADED : formatSignedCount(t.change), changeTone(t.change)),
    pageChange(t),
    num(formatCount(t.totalVisitorDaysPrev7d), 'muted'),
    num(formatCount(t.totalVisitorDays7d)),
    { text: t.path, path: true },
  ];
  return {
    id: 'movers',
    title: 'Biggest movers, last 7 days vs the 7 before, in visitor-days',
    head: [head('', false), head('change'), head('%'), head('before'), head('now'), head('path', false)],
    rows: [...p.moversUp.map(row), ...p.moversDown.map(row)],
    notes: [],
    empty: p.pagesComparable ? 'no page changed' : notComparable(p),
  };
}

/** The one line that tells true uniques of a period from the visitor-days of the other tables. */
export const UNIQUES_NOTE =
  'Unique visitors of a week or month count a reader once per period; the visitor-days figures elsewhere count a reader once per day they came.';

/**
 * True unique visitors of the latest complete ISO week and month (visitors_weekly /
 * visitors_monthly), the period in progress after each labelled partial, each complete one
 * against the complete period before it. A partial period is never compared: it is not over.
 */
export function uniquesTable(p: ProjectReport): Table {
  const u = p.uniques;
  if (!u) throw new Error('no uniques section');
  const row = (grain: string, x: UniquePeriod | undefined): Cell[][] => {
    if (!x) return [];
    return [
      [
        label(grain, x.partial ? undefined : 'strong'),
        { text: x.partial ? `${x.label} (partial)` : x.label, tone: x.partial ? 'muted' : undefined },
        num(formatCount(x.human)),
        num(formatCount(x.ai)),
        num(formatCount(x.total), x.partial ? undefined : 'strong'),
        // On a phone the change says what the previous total would: it gives way (a 390-px
        // screen then shows the whole table, not part of it in a box that scrolls).
        { ...num(formatCount(x.previousTotal), 'muted'), minor: true },
        x.partial ? num('–', 'muted') : change(x.totalChangePct),
      ],
    ];
  };
  return {
    id: 'uniques',
    title: 'Unique visitors this week and this month',
    head: [
      head('', false),
      head('period', false),
      head('human'),
      head('AI'),
      head('total'),
      { ...head('previous'), minor: true },
      head('change'),
    ],
    rows: [
      ...row('week', u.week),
      ...row('week', u.weekPartial),
      ...row('month', u.month),
      ...row('month', u.monthPartial),
    ],
    notes: [
      UNIQUES_NOTE,
      'The newest week and month that are over and settled: a period is loaded --lookback days after it ends (sync --include-today adds the running ones, partial).',
      ...(u.weekPartial || u.monthPartial
        ? ['A partial period was not over when loaded: it is not compared with the one before.']
        : []),
    ],
    empty: 'no week or month loaded',
  };
}
