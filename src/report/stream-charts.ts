import * as Plot from '@observablehq/plot';
import { addDays, dayToMs } from '../util/day.js';
import { COLORS } from './chart-colors.js';
import { formatCount, formatIsoWeek, formatRatio, formatShare } from './format.js';
import {
  windowSeries,
  type AssistantDay,
  type CallerDay,
  type ProjectReport,
  type ViewsDay,
} from './model.js';

/**
 * The charts of the views and assistant-callers sections, drawn like the visitors charts (Plot on
 * jsdom, 12-px text, once per width) so that they stay legible in the 360-px phone drawing.
 */

const FONT = { fontSize: '12px', fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' };
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const compact = (n: number): string => COMPACT.format(n);

/**
 * Caller colours: web (the docs site's own assistant) in the human colour, API in the AI one.
 * Written out rather than read from COLORS at load time: charts.ts imports this module.
 */
export const CALLER_COLORS = { web: '#2563eb', api: '#e8590c', other: '#94a3b8' } as const;

/** One row per calendar day of the window: a day not loaded is null, so lines break there. */
function calendar<D extends { readonly day: string }>(p: ProjectReport, days: readonly D[]) {
  return windowSeries(p, days, (d) => d).map((d, i) => {
    const day = addDays(p.window.from, i);
    return { date: new Date(dayToMs(day)), day, d };
  });
}

export function viewsChart(p: ProjectReport, document: Document, width: number): string | undefined {
  const v = p.views;
  if (!v) return undefined;
  const rows = calendar<ViewsDay>(p, v.daily).map((r) => ({
    date: r.date,
    total: r.d?.total ?? null,
    avg: r.d?.total7dAvg ?? null,
    title: r.d
      ? `${r.day}\n${formatCount(r.d.total)} views (human ${formatCount(r.d.human)} · AI ${formatCount(r.d.ai)})\n7-day avg ${formatCount(r.d.total7dAvg)} · per visitor ${formatRatio(r.d.viewsPerVisitor)}`
      : `${r.day}: not loaded`,
  }));
  return Plot.plot({
    document,
    width,
    height: 280,
    marginLeft: 56,
    style: FONT,
    ariaLabel: 'Content views per day, with the 7-day average',
    x: { type: 'utc', label: null },
    y: { grid: true, label: 'views per day', zero: true, tickFormat: compact },
    marks: [
      Plot.lineY(rows, { x: 'date', y: 'total', stroke: COLORS.total, strokeOpacity: 0.45, strokeWidth: 1 }),
      Plot.lineY(rows, { x: 'date', y: 'avg', stroke: COLORS.total, strokeWidth: 2.5 }),
      Plot.ruleY([0]),
      Plot.dot(
        rows.filter((r) => r.total !== null),
        { x: 'date', y: 'total', r: 6, fill: COLORS.total, fillOpacity: 0, title: 'title' },
      ),
    ],
  }).outerHTML;
}

export function callersChart(p: ProjectReport, document: Document, width: number): string | undefined {
  const c = p.callers;
  if (!c) return undefined;
  const bars = calendar<CallerDay>(p, c.daily).flatMap((r) => {
    const d = r.d;
    if (!d) return [];
    const title = `${r.day}: ${formatCount(d.total)} assistant queries\nweb ${formatCount(d.web)} (${formatShare(d.webShare)}) · API ${formatCount(d.api)} (${formatShare(d.apiShare)}) · other ${formatCount(d.other)} (${formatShare(d.otherShare)})`;
    return (['web', 'api', 'other'] as const).map((caller) => ({
      date: r.date,
      caller,
      value: d[caller],
      title,
    }));
  });
  return Plot.plot({
    document,
    width,
    height: 260,
    marginLeft: 56,
    style: FONT,
    ariaLabel: 'Assistant queries per day by caller: web, API, other',
    x: { type: 'utc', label: null },
    y: { grid: true, label: 'assistant queries per day', zero: true, tickFormat: compact },
    color: {
      domain: ['web', 'api', 'other'],
      range: [CALLER_COLORS.web, CALLER_COLORS.api, CALLER_COLORS.other],
    },
    marks: [
      // rectY stacks the three callers of each day; a day not loaded simply has no bar.
      Plot.rectY(bars, {
        x: 'date',
        interval: 'day',
        y: 'value',
        fill: 'caller',
        title: 'title',
        insetLeft: 0.5,
        insetRight: 0.5,
      }),
      Plot.ruleY([0]),
    ],
  }).outerHTML;
}

const PERCENT = (n: number): string => `${Math.round(n * 100)}%`;

/** The helpful share of contextual feedback per ISO week: one dot a week (hollow: an incomplete week). */
export function feedbackChart(p: ProjectReport, document: Document, width: number): string | undefined {
  const f = p.feedback;
  if (!f) return undefined;
  const rows = f.weekly
    .filter((w) => w.helpfulShare !== null)
    .map((w) => ({
      date: new Date(dayToMs(w.weekStart)),
      share: w.helpfulShare,
      complete: w.daysLoaded === 7,
      title: `${formatIsoWeek(w.isoYear, w.isoWeek)} (from ${w.weekStart}): ${formatShare(w.helpfulShare)} helpful\n${formatCount(w.up)} up · ${formatCount(w.down)} down${w.daysLoaded < 7 ? ` · ${w.daysLoaded} of 7 days loaded` : ''}`,
    }));
  return Plot.plot({
    document,
    width,
    height: 200,
    marginLeft: 48,
    style: FONT,
    ariaLabel: 'Helpful share of contextual feedback per week',
    x: { type: 'utc', label: null },
    y: { domain: [0, 1], grid: true, label: 'helpful share', tickFormat: PERCENT },
    marks: [
      Plot.lineY(rows, { x: 'date', y: 'share', stroke: COLORS.total, strokeWidth: 2 }),
      Plot.dot(rows, {
        x: 'date',
        y: 'share',
        r: 5,
        stroke: COLORS.total,
        fill: (d: { complete: boolean }) => (d.complete ? COLORS.total : 'white'),
        title: 'title',
      }),
    ],
  }).outerHTML;
}

/** Answered and clarifying shares of the assistant's turns per day; a day not loaded breaks the lines. */
export function assistantChart(p: ProjectReport, document: Document, width: number): string | undefined {
  const a = p.assistant;
  if (!a) return undefined;
  const rows = calendar<AssistantDay>(p, a.daily).flatMap((r) => {
    const d = r.d;
    const title = d
      ? `${r.day}: ${formatCount(d.turns)} turns\nanswered ${formatShare(d.answeredShare)} · clarifying ${formatShare(d.clarifyingShare)}`
      : `${r.day}: not loaded`;
    return [
      { date: r.date, kind: 'answered', share: d?.answeredShare ?? null, title },
      { date: r.date, kind: 'clarifying', share: d?.clarifyingShare ?? null, title },
    ];
  });
  return Plot.plot({
    document,
    width,
    height: 220,
    marginLeft: 48,
    style: FONT,
    ariaLabel: 'Answered and clarifying-question shares of assistant turns per day',
    x: { type: 'utc', label: null },
    y: { domain: [0, 1], grid: true, label: 'share of turns', tickFormat: PERCENT },
    color: {
      domain: ['answered', 'clarifying'],
      range: [ASSISTANT_COLORS.answered, ASSISTANT_COLORS.clarifying],
    },
    marks: [
      Plot.lineY(rows, { x: 'date', y: 'share', z: 'kind', stroke: 'kind', strokeWidth: 2 }),
      Plot.dot(
        rows.filter((r) => r.share !== null),
        { x: 'date', y: 'share', r: 5, stroke: 'kind', fillOpacity: 0, title: 'title' },
      ),
    ],
  }).outerHTML;
}

export const ASSISTANT_COLORS = { answered: '#15803d', clarifying: '#94a3b8' } as const;
