import * as Plot from '@observablehq/plot';
import { JSDOM } from 'jsdom';
import { addDays, dayToMs } from '../util/day.js';
import { formatChange, formatCount, formatIsoWeek, formatShare } from './format.js';
import { calendarSeries, type ProjectReport } from './model.js';
import { assistantChart, callersChart, feedbackChart, viewsChart } from './stream-charts.js';
import { truncateMiddle } from './text.js';
import { COLORS } from './chart-colors.js';

/**
 * The report's charts as SVG markup, drawn once at build time by Observable Plot against a jsdom
 * document: the page that embeds them needs no script, no network and no fonts to show them.
 * Plot writes every label with textContent, so the serializer escapes page paths for us.
 */
export { COLORS } from './chart-colors.js';

/** Drawn for a desktop page, scaled down to fit it. */
export const WIDE = 960;
/**
 * Drawn for a phone: scaled into a 420-px screen a 960-px chart has 4-px text, so the page
 * carries a second drawing this wide (about a phone's content width: scaled by 0.85 to 1.1 on
 * 360- to 430-px screens) and CSS shows the one that fits.
 */
export const NARROW = 360;

function isNarrow(width: number): boolean {
  return width < 600;
}
const FONT = { fontSize: '12px', fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' };

export interface ProjectCharts {
  readonly daily: string;
  readonly weekly: string;
  readonly topPages: string | undefined;
  readonly aiShare: string;
  /** Only when the project has the views (caller_stats) section. */
  readonly views?: string | undefined;
  readonly callers?: string | undefined;
  /** Only when the project has the feedback (assistant) section. */
  readonly feedback?: string | undefined;
  readonly assistant?: string | undefined;
}

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** Axis numbers: 800, 1.2K, 15K, 1.5M. */
function compact(n: number): string {
  return COMPACT.format(n);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 2026-02-09 -> "Feb 9". */
function monthDay(day: string): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1] ?? ''} ${Number(day.slice(8, 10))}`;
}

function utc(day: string): Date {
  return new Date(dayToMs(day));
}

/** Renders the four charts of one project, `width` px wide. One jsdom document serves them all. */
export function renderCharts(
  p: ProjectReport,
  document: Document = new JSDOM('').window.document,
  width: number = WIDE,
): ProjectCharts {
  return {
    daily: dailyChart(p, document, width),
    weekly: weeklyChart(p, document, width),
    topPages: topPagesChart(p, document, width),
    aiShare: aiShareChart(p, document, width),
    views: viewsChart(p, document, width),
    callers: callersChart(p, document, width),
    feedback: feedbackChart(p, document, width),
    assistant: assistantChart(p, document, width),
  };
}

function svg(el: Element): string {
  return el.outerHTML;
}

interface DayRow {
  date: Date;
  day: string;
  human: number | null;
  ai: number | null;
  total: number | null;
  human7: number | null;
  ai7: number | null;
  total7: number | null;
  share: number | null;
  share7: number | null;
}

function dayRows(p: ProjectReport): DayRow[] {
  const points = calendarSeries(p, (d) => d);
  let day = p.window.from;
  return points.map((d) => {
    const row: DayRow = {
      date: utc(day),
      day,
      human: d?.human ?? null,
      ai: d?.ai ?? null,
      total: d?.total ?? null,
      human7: d?.human7dAvg ?? null,
      ai7: d?.ai7dAvg ?? null,
      total7: d?.total7dAvg ?? null,
      share: d?.aiShare ?? null,
      share7:
        d && d.human7dAvg !== null && d.ai7dAvg !== null && d.human7dAvg + d.ai7dAvg > 0
          ? d.ai7dAvg / (d.human7dAvg + d.ai7dAvg)
          : null,
    };
    day = addDays(day, 1);
    return row;
  });
}

function dayTitle(r: DayRow): string {
  if (r.total === null) return `${r.day}: not loaded`;
  return `${r.day}\nhuman ${formatCount(r.human)} · AI ${formatCount(r.ai)} · total ${formatCount(r.total)}\n7-day avg total ${formatCount(r.total7)}`;
}

function dailyChart(p: ProjectReport, document: Document, width: number): string {
  const rows = dayRows(p);
  const x = 'date';
  return svg(
    Plot.plot({
      document,
      width,
      height: 340,
      marginLeft: 56,
      style: FONT,
      ariaLabel: 'Daily unique visitors, human and AI, with 7-day averages',
      x: { type: 'utc', label: null },
      y: { grid: true, label: 'unique visitors per day', zero: true, tickFormat: compact },
      marks: [
        // y1/y2 rather than y: areaY would stack, and stacking reads a missing day as 0.
        Plot.areaY(rows, { x, y1: 0, y2: 'human', fill: COLORS.human, fillOpacity: 0.1 }),
        Plot.areaY(rows, { x, y1: 0, y2: 'ai', fill: COLORS.ai, fillOpacity: 0.1 }),
        Plot.lineY(rows, { x, y: 'human', stroke: COLORS.human, strokeOpacity: 0.45, strokeWidth: 1 }),
        Plot.lineY(rows, { x, y: 'ai', stroke: COLORS.ai, strokeOpacity: 0.45, strokeWidth: 1 }),
        Plot.lineY(rows, { x, y: 'total7', stroke: COLORS.muted, strokeWidth: 1.5, strokeDasharray: '5,4' }),
        Plot.lineY(rows, { x, y: 'human7', stroke: COLORS.human, strokeWidth: 2.5 }),
        Plot.lineY(rows, { x, y: 'ai7', stroke: COLORS.ai, strokeWidth: 2.5 }),
        Plot.ruleY([0]),
        // Invisible hover targets: the browser shows each day's numbers as a native tooltip.
        Plot.dot(
          rows.filter((r) => r.total !== null),
          { x, y: 'human', r: 7, fill: COLORS.human, fillOpacity: 0, title: dayTitle },
        ),
      ],
    }),
  );
}

interface WeekBar {
  week: string;
  series: 'total' | 'human' | 'AI';
  x1: Date;
  x2: Date;
  value: number;
  partial: boolean;
  title: string;
}

interface WeekMarks {
  bars: WeekBar[];
  labels: { x: Date; value: number; text: string }[];
  ticks: { at: Date; text: string }[];
}

/** What a week's bar says above it: how short an incomplete week is, else its change. */
function weekLabel(wk: ProjectReport['weekly'][number]): string {
  if (!wk.complete) return wk.days < 7 ? `${wk.days}/7 days` : 'partial';
  return wk.comparable ? formatChange(wk.totalVisitorDaysChangePct) : '';
}

function weekMarks(p: ProjectReport, maxWeeks: number): WeekMarks {
  const marks: WeekMarks = { bars: [], labels: [], ticks: [] };
  // Three bars side by side inside each week's 7 days, on a time axis so any number of weeks fits.
  const slots = [
    ['total', 0.6, 2.6],
    ['human', 2.6, 4.6],
    ['AI', 4.6, 6.6],
  ] as const;
  for (const wk of p.weekly) {
    const start = dayToMs(wk.weekStart);
    const week = formatIsoWeek(wk.isoYear, wk.isoWeek);
    const values = { total: wk.totalVisitorDays, human: wk.humanVisitorDays, AI: wk.aiVisitorDays };
    for (const [series, a, b] of slots) {
      marks.bars.push({
        week,
        series,
        x1: new Date(start + a * 86_400_000),
        x2: new Date(start + b * 86_400_000),
        value: values[series],
        partial: !wk.complete,
        title: `${week} (from ${wk.weekStart}, ${wk.days} day${wk.days === 1 ? '' : 's'} loaded)\n${series} ${formatCount(values[series])} visitor-days`,
      });
    }
    if (p.weekly.length <= maxWeeks) {
      marks.labels.push({
        x: new Date(start + 1.6 * 86_400_000),
        value: wk.totalVisitorDays,
        text: weekLabel(wk),
      });
    }
    marks.ticks.push({
      at: new Date(start + 3.6 * 86_400_000),
      text: `${week.slice(5)}\n${monthDay(wk.weekStart)}`,
    });
  }
  return marks;
}

function weeklyChart(p: ProjectReport, document: Document, width: number): string {
  // Week labels and change figures need about 55 px a week: fewer fit on a phone.
  const maxWeeks = isNarrow(width) ? 6 : 16;
  const { bars, labels, ticks } = weekMarks(p, maxWeeks);
  // One tick per week, under its bars, named like the table's rows; thinned when weeks are many.
  const every = Math.ceil(ticks.length / maxWeeks);
  const shown = ticks.filter((_, i) => i % every === 0);
  const tickText = new Map(shown.map((t) => [t.at.getTime(), t.text]));
  return svg(
    Plot.plot({
      document,
      width,
      height: 300,
      marginLeft: 56,
      marginTop: 28,
      style: FONT,
      ariaLabel: 'Weekly visitor-days (sum of daily unique visitors), total, human and AI',
      marginBottom: 40,
      x: {
        type: 'utc',
        label: null,
        ticks: shown.map((t) => t.at),
        tickFormat: (d: Date) => tickText.get(d.getTime()) ?? '',
        tickSize: 0,
      },
      y: { grid: true, label: 'visitor-days per ISO week', zero: true, tickFormat: compact },
      color: { domain: ['total', 'human', 'AI'], range: [COLORS.total, COLORS.human, COLORS.ai] },
      marks: [
        Plot.rectY(bars, {
          x1: 'x1',
          x2: 'x2',
          y: 'value',
          fill: 'series',
          fillOpacity: (d: WeekBar) => (d.partial ? 0.35 : 0.9),
          title: 'title',
          insetLeft: 1,
          insetRight: 1,
        }),
        Plot.text(labels, {
          x: 'x',
          y: 'value',
          text: 'text',
          dy: -8,
          fill: 'currentColor',
          fontSize: isNarrow(width) ? 12 : 11,
        }),
        Plot.ruleY([0]),
      ],
    }),
  );
}

function topPagesChart(p: ProjectReport, document: Document, width: number): string | undefined {
  const pages = p.topPages;
  if (pages.length === 0) return undefined;
  const narrow = isNarrow(width);
  const label = new Map(pages.map((t) => [t.rank, truncateMiddle(t.path, narrow ? 22 : 44)]));
  const longest = Math.max(...[...label.values()].map((l) => l.length));
  const title = (t: (typeof pages)[number]): string =>
    `${t.path}\ntotal ${formatCount(t.totalVisitorDays7d)} · human ${formatCount(t.humanVisitorDays7d)} · AI ${formatCount(t.aiVisitorDays7d)} visitor-days\nAI share ${formatShare(t.aiShare7d)} · vs previous 7 days ${t.change === null ? 'not loaded' : formatChange(t.changePct)}`;
  const max = Math.max(...pages.map((t) => t.totalVisitorDays7d), 1);
  return svg(
    Plot.plot({
      document,
      width,
      height: 40 + pages.length * 28,
      marginLeft: Math.min(narrow ? 160 : 380, 16 + longest * 6.8),
      marginRight: narrow ? 50 : 70,
      style: FONT,
      ariaLabel: 'Top pages, last 7 days, in visitor-days',
      x: { grid: true, label: null, axis: 'top', tickFormat: compact, domain: [0, max] },
      y: {
        label: null,
        domain: pages.map((t) => t.rank),
        tickFormat: (r: number) => label.get(r) ?? '',
        tickSize: 0,
      },
      marks: [
        Plot.barX(pages, {
          y: 'rank',
          x: 'totalVisitorDays7d',
          fill: COLORS.total,
          fillOpacity: 0.85,
          title,
        }),
        Plot.barX(pages, {
          y: 'rank',
          x: 'aiVisitorDays7d',
          fill: COLORS.ai,
          insetTop: 8,
          insetBottom: 8,
          title,
        }),
        Plot.text(pages, {
          y: 'rank',
          x: 'totalVisitorDays7d',
          text: (t: (typeof pages)[number]) => formatCount(t.totalVisitorDays7d),
          dx: 6,
          textAnchor: 'start',
          fill: 'currentColor',
        }),
        Plot.ruleX([0]),
      ],
    }),
  );
}

function aiShareChart(p: ProjectReport, document: Document, width: number): string {
  const rows = dayRows(p);
  const x = 'date';
  return svg(
    Plot.plot({
      document,
      width,
      height: 260,
      marginLeft: 56,
      style: FONT,
      ariaLabel: 'AI share of visitors (AI / (human + AI)), daily and 7-day',
      x: { type: 'utc', label: null },
      y: { grid: true, label: 'AI share (%)', percent: true, zero: true },
      marks: [
        Plot.lineY(rows, { x, y: 'share', stroke: COLORS.ai, strokeOpacity: 0.45, strokeWidth: 1 }),
        Plot.dot(rows, {
          x,
          y: 'share',
          r: 2,
          fill: COLORS.ai,
          fillOpacity: 0.6,
          title: (r: DayRow) => `${r.day}: AI share ${formatShare(r.share)}`,
        }),
        Plot.lineY(rows, { x, y: 'share7', stroke: COLORS.ai, strokeWidth: 2.5 }),
        Plot.ruleY([0]),
      ],
    }),
  );
}
