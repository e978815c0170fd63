import { JSDOM } from 'jsdom';
import { COLORS, NARROW, renderCharts, WIDE, type ProjectCharts } from './charts.js';
import { formatChange, formatCount, formatShare, plural } from './format.js';
import {
  emptyReason,
  eventOnlyNote,
  hasReport,
  type EventOnlyReport,
  type ProjectReport,
  type ReportData,
} from './model.js';
import { eventTables } from './event-tables.js';
import { eventStreamTables } from './event-stream-tables.js';
import { gapTables } from './gap-tables.js';
import { ASSISTANT_COLORS, CALLER_COLORS } from './stream-charts.js';
import { streamTables } from './stream-tables.js';
import { changeTone, projectTables, type Cell, type Table } from './tables.js';
import { REPORT_MARKER } from './marker.js';

/**
 * The report as ONE self-contained HTML page: inline CSS, charts as inline SVG drawn at build
 * time, no script, no font, image or stylesheet from anywhere. Every text that comes from the
 * data (paths, project ids) goes through escapeHtml.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and quoted attribute values. NUL (invalid in HTML) becomes U+FFFD. */
export function escapeHtml(text: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is exactly the character to replace.
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c).replace(/\u0000/g, '\uFFFD');
}

export interface HtmlOptions {
  /**
   * Draws the charts of a project `width` px wide (called once for desktops, once for phones);
   * tests may pass a stub. Default: Observable Plot on jsdom.
   */
  readonly charts?: (p: ProjectReport, width: number) => ProjectCharts;
}

/** A project's charts drawn twice: CSS shows the wide drawing or, on a phone, the narrow one. */
interface ChartPair {
  readonly wide: ProjectCharts;
  readonly narrow: ProjectCharts;
}

export function renderHtml(data: ReportData, opts: HtmlOptions = {}): string {
  const document = new JSDOM('').window.document;
  const draw = opts.charts ?? ((p: ProjectReport, width: number) => renderCharts(p, document, width));
  const charts = (p: ProjectReport): ChartPair => ({ wide: draw(p, WIDE), narrow: draw(p, NARROW) });
  const eventOnly = data.eventOnly ?? [];
  const ids = [...data.projects.map((p) => p.projectId), ...eventOnly.map((e) => e.projectId)];
  const title = `Mintlify visitors${ids.length === 1 ? ` · ${ids[0] ?? ''}` : ''}`;
  const body = !hasReport(data)
    ? `<p class="empty">${escapeHtml(emptyReason(data))}</p>`
    : [...data.projects.map((p) => projectSection(p, charts(p))), ...eventOnly.map(eventOnlySection)].join(
        '\n',
      );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${REPORT_MARKER}
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="page">
<h1>Mintlify docs visitors</h1>
<p class="meta">Generated ${escapeHtml(data.generatedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))} · last ${plural(data.days, 'day')} per project</p>
</header>
<main>
${body}
</main>
<footer>
<p><strong>Visitors</strong> are daily unique visitors as the Mintlify analytics API counts them; <strong>total</strong> de-duplicates
people seen as both human and AI, so it is not human + AI. <strong>Visitor-days</strong> are sums of daily unique visitors over
several days: someone who came on three days counts three times, so they are not unique visitors of the period.
<strong>AI share</strong> is AI / (human + AI).</p>${streamFooter(data)}
</footer>
</body>
</html>
`;
}

/** A project with only the event stream loaded: its event-stream tables under the project's heading. */
function eventOnlySection(e: EventOnlyReport): string {
  return `<section class="project" id="${escapeHtml(anchorId(e.projectId))}">
<h2>Project <code>${escapeHtml(e.projectId)}</code></h2>
<p class="meta">${escapeHtml(eventOnlyNote(e))}</p>
<div class="stream" data-stream="events">
${eventStreamTables(e.eventStream).map(renderTable).join('\n')}
</div>
</section>`;
}

function projectSection(p: ProjectReport, charts: ChartPair): string {
  const w = p.window;
  const c = p.coverage;
  const notLoaded = w.days - w.daysLoaded;
  const tables = projectTables(p);
  const byId = new Map(tables.map((t) => [t.id, t]));
  const table = (id: Table['id']): string => {
    const t = byId.get(id);
    return t ? renderTable(t) : '';
  };
  const meta =
    `${w.from} to ${w.to} (${plural(w.days, 'day')}${notLoaded > 0 ? `, ${notLoaded} not loaded` : ''}) · ` +
    `database holds ${c.firstDay} to ${c.lastDay}: ${plural(c.daysLoaded, 'day')}` +
    (c.missingDays > 0 ? `, ${c.missingDays} missing` : '') +
    (c.partialDays > 0 ? `, ${c.partialDays} partial` : '');
  return `<section class="project" id="${escapeHtml(anchorId(p.projectId))}">
<h2>Project <code>${escapeHtml(p.projectId)}</code></h2>
<p class="meta">${escapeHtml(meta)}</p>
${cards(p)}
${figure(
  'daily',
  'Daily unique visitors',
  'thin: each day · thick: 7-day average · dashed: total, 7-day average (averages start once 7 days are loaded)',
  pick(charts, 'daily'),
  [
    ['human', COLORS.human],
    ['AI', COLORS.ai],
    ['total (7-day avg)', COLORS.muted],
  ],
)}
${table('site')}
${table('period')}
${uniquesCards(p)}${table('uniques')}
${figure(
  'weekly',
  'Weekly visitor-days',
  'ISO weeks; pale bars: incomplete weeks (fewer than 7 days loaded, or a partial day), with no change shown',
  pick(charts, 'weekly'),
  [
    ['total', COLORS.total],
    ['human', COLORS.human],
    ['AI', COLORS.ai],
  ],
)}
${figure('ai-share', 'AI share of visitors', 'dots: each day · line: 7-day', pick(charts, 'aiShare'), [['AI / (human + AI)', COLORS.ai]])}
${table('weekly')}
${
  charts.wide.topPages === undefined
    ? ''
    : figure(
        'top-pages',
        'Top pages, last 7 days',
        'visitor-days; orange: the AI part',
        pick(charts, 'topPages'),
        [
          ['total', COLORS.total],
          ['AI', COLORS.ai],
        ],
      )
}
${table('top-pages')}
${table('movers')}
${streamSections(p, charts)}</section>`;
}

/**
 * The views, searches and assistant-caller parts, each only when its stream is loaded: a
 * visitors-only project gives an empty string, and the page is the one it always was.
 */
function streamSections(p: ProjectReport, charts: ChartPair): string {
  const byId = new Map(
    [...streamTables(p), ...eventTables(p), ...gapTables(p), ...eventStreamTables(p.eventStream)].map((t) => [
      t.id,
      renderTable(t),
    ]),
  );
  const table = (id: Table['id']): string => byId.get(id) ?? '';
  const parts: string[] = [];
  if (p.views) {
    parts.push(`<div class="stream" data-stream="views">
${figure('views', 'Content views per day', 'thin: each day · thick: 7-day average (once 7 complete days are loaded) · views are events: they add up', pick(charts, 'views'), [['views', COLORS.total]])}
${table('views')}
${table('views-pages')}
</div>`);
  }
  if (p.searches) {
    parts.push(`<div class="stream" data-stream="searches">
${table('search-terms')}
${table('search-gaps')}
</div>`);
  }
  if (p.callers) {
    parts.push(`<div class="stream" data-stream="callers">
${figure(
  'callers',
  'Assistant queries per day by caller',
  'stacked: web (the docs site), API, other · queries are events: they add up',
  pick(charts, 'callers'),
  [
    ['web', CALLER_COLORS.web],
    ['API', CALLER_COLORS.api],
    ['other', CALLER_COLORS.other],
  ],
)}
${table('callers')}
</div>`);
  }
  if (p.feedback) {
    parts.push(`<div class="stream" data-stream="feedback">
${table('feedback-open')}
${figure('feedback', 'Helpful share of feedback per week', 'thumbs up / (up + down) of contextual feedback, by the week it was given · hollow: a week not wholly loaded', pick(charts, 'feedback'), [['helpful', COLORS.total]])}
${table('feedback-thumbs')}
</div>`);
  }
  if (p.assistant) {
    parts.push(`<div class="stream" data-stream="assistant">
${figure(
  'assistant',
  'Assistant answers per day',
  'shares of the day’s turns (questions to the assistant); a day not loaded breaks the lines',
  pick(charts, 'assistant'),
  [
    ['answered', ASSISTANT_COLORS.answered],
    ['clarifying question', ASSISTANT_COLORS.clarifying],
  ],
)}
${table('assistant')}
${table('assistant-unanswered')}
</div>`);
  }
  if (p.gaps) {
    parts.push(`<div class="stream" data-stream="gaps">
${table('content-gaps')}
${table('fix-outcomes')}
</div>`);
  }
  if (p.eventStream) {
    parts.push(`<div class="stream" data-stream="events">
${table('event-visitors')}
${table('event-traffic')}
${table('event-referrers')}
${table('event-funnels')}
</div>`);
  }
  return parts.map((x) => `${x}\n`).join('');
}

/** Cards of the true unique visitors of the latest complete week and month, when loaded. */
function uniquesCards(p: ProjectReport): string {
  const u = p.uniques;
  if (!u) return '';
  const card = (
    what: string,
    x: NonNullable<typeof u.week>,
    partial: NonNullable<typeof u.week> | undefined,
  ): string => {
    const sub = `human ${formatCount(x.human)} · AI ${formatCount(x.ai)}${partial ? ` · ${partial.label} so far (partial): ${formatCount(partial.total)}` : ''}`;
    return `<div class="card"><div class="label">${escapeHtml(`Unique visitors, ${what} ${x.label}`)}</div><div class="value">${escapeHtml(formatCount(x.total))}</div><div class="sub">${escapeHtml(sub)}</div><div class="delta">${delta(x.totalChangePct, `vs the ${what} before`)}</div></div>`;
  };
  const items = [
    u.week ? card('week', u.week, u.weekPartial) : '',
    u.month ? card('month', u.month, u.monthPartial) : '',
  ].filter((x) => x !== '');
  return items.length === 0 ? '' : `<div class="cards uniques">\n${items.join('\n')}\n</div>\n`;
}

/** Words of the newer sections, said only on a page that has them. */
function streamFooter(data: ReportData): string {
  const has = (k: 'views' | 'searches' | 'callers' | 'feedback' | 'assistant'): boolean =>
    data.projects.some((p) => p[k] !== undefined);
  const words = [
    has('views')
      ? '<strong>Views</strong> are content view events: unlike visitors they add up over days and pages; <strong>views per visitor</strong> is views / unique visitors of the same day.'
      : '',
    has('searches')
      ? '<strong>Searches</strong> (hits) add up too; <strong>CTR</strong> is the part of a term’s searches followed by a click, weighted by searches.'
      : '',
    has('callers')
      ? '<strong>Assistant queries</strong> are events by caller: web (the docs site’s assistant), API, other.'
      : '',
    has('feedback')
      ? '<strong>Helpful</strong> is thumbs up / (up + down) of contextual feedback; feedback contacts are personal data, shown only with <code>--include-personal-data</code>.'
      : '',
    has('assistant')
      ? '<strong>Answered</strong> and <strong>clarifying</strong> are shares of the assistant’s turns (one user question each); unanswered questions are grouped ignoring case and spacing.'
      : '',
  ].filter((w) => w !== '');
  return words.length === 0 ? '' : `\n<p>${words.join(' ')}</p>`;
}

function anchorId(projectId: string): string {
  return `project-${projectId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function cards(p: ProjectReport): string {
  const l = p.latest;
  const shareDelta =
    p.comparable && p.last7.aiShare !== null && p.prev7.aiShare !== null
      ? (p.last7.aiShare - p.prev7.aiShare) * 100
      : null;
  const items: [string, string, string, string][] = [
    [
      `Visitors on ${l.day}${l.partial ? ' (partial)' : ''}`,
      formatCount(l.total),
      `human ${formatCount(l.human)} · AI ${formatCount(l.ai)}`,
      delta(l.totalWowPct, 'vs the same day a week before'),
    ],
    [
      '7-day average per day',
      formatCount(l.total7dAvg),
      `human ${formatCount(l.human7dAvg)} · AI ${formatCount(l.ai7dAvg)}`,
      `<span class="flat">${escapeHtml(windowAverage(p))}</span>`,
    ],
    [
      'Last 7 days, visitor-days',
      formatCount(p.last7.totalVisitorDays),
      `human ${formatCount(p.last7.humanVisitorDays)} · AI ${formatCount(p.last7.aiVisitorDays)}`,
      p.comparable
        ? delta(p.last7Change, 'vs the 7 days before')
        : `<span class="flat">${escapeHtml(notLoadedBefore(p))}</span>`,
    ],
    [
      'AI share, last 7 days',
      formatShare(p.last7.aiShare),
      `${l.day}: ${formatShare(l.aiShare)}`,
      shareDelta === null
        ? `<span class="flat">${p.comparable ? '–' : escapeHtml(notLoadedBefore(p))}</span>`
        : `<span class="${changeTone(shareDelta / 100)}">${escapeHtml(`${shareDelta >= 0 ? '+' : '-'}${Math.abs(shareDelta).toFixed(1)} pt`)}</span> <span class="flat">vs the 7 days before</span>`,
    ],
  ];
  return `<div class="cards">
${items
  .map(
    ([label, value, sub, d]) =>
      `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div><div class="sub">${escapeHtml(sub)}</div><div class="delta">${d}</div></div>`,
  )
  .join('\n')}
</div>`;
}

/** The window's own average, unless the window is 7 days or fewer and would repeat the card's. */
function windowAverage(p: ProjectReport): string {
  const w = p.windowTotals;
  if (p.window.days <= 7) return `${p.last7.from} to ${p.last7.to}`;
  return `${p.window.days}-day average ${formatCount(w.totalVisitorDays !== null && w.daysLoaded > 0 ? w.totalVisitorDays / w.daysLoaded : null)}`;
}

/** No change against days never loaded (a first sync): say how many of the 7 days before are. */
function notLoadedBefore(p: ProjectReport): string {
  return `the 7 days before not loaded (${p.prev7.daysLoaded} of 7): no change shown`;
}

function delta(fraction: number | null, what: string): string {
  return `<span class="${changeTone(fraction)}">${escapeHtml(formatChange(fraction))}</span> <span class="flat">${escapeHtml(what)}</span>`;
}

function pick(charts: ChartPair, key: keyof ProjectCharts): { wide: string; narrow: string } {
  return { wide: charts.wide[key] ?? '', narrow: charts.narrow[key] ?? '' };
}

function figure(
  id: string,
  title: string,
  hint: string,
  svg: { wide: string; narrow: string },
  keys: readonly (readonly [string, string])[],
): string {
  const legend = keys
    .map(([name, color]) => `<span class="key"><i style="background:${color}"></i>${escapeHtml(name)}</span>`)
    .join('');
  return `<figure class="chart" data-chart="${escapeHtml(id)}">
<figcaption><span class="title">${escapeHtml(title)}</span><span class="legend">${legend}</span><span class="hint">${escapeHtml(hint)}</span></figcaption>
<div class="plot wide">${svg.wide}</div>
<div class="plot narrow">${svg.narrow}</div>
</figure>`;
}

/** `column` is 'path', 'spark' or 'minor' for every cell of such a column, header included. */
function cellHtml(c: Cell, tag: 'td' | 'th', column: string): string {
  const classes = [c.right ? 'num' : '', c.tone ?? '', column, c.label ? 'label' : '']
    .filter((x) => x !== '')
    .join(' ');
  const text = c.path ? `<code>${escapeHtml(c.text)}</code>` : escapeHtml(c.text);
  return `<${tag}${classes ? ` class="${classes}"` : ''}>${text}</${tag}>`;
}

function renderTable(t: Table): string {
  const title = `<h3>${escapeHtml(t.title)}</h3>`;
  if (t.rows.length === 0)
    return `<div class="table" data-table="${t.id}">${title}<p class="empty">${escapeHtml(t.empty ?? 'nothing to show')}</p></div>`;
  const columns = (t.rows[0] ?? []).map((c) =>
    c.path ? 'path' : c.spark ? 'spark' : c.minor ? 'minor' : c.free ? 'free' : '',
  );
  const row = (cells: readonly Cell[], tag: 'td' | 'th'): string =>
    `<tr>${cells.map((c, i) => cellHtml(c, tag, columns[i] ?? '')).join('')}</tr>`;
  const headRow = row(t.head, 'th');
  const rows = t.rows.map((r) => row(r, 'td')).join('\n');
  const notes = t.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('');
  // On a phone such a table folds each row in two (see the CSS) instead of pushing these off screen.
  const reflow = columns.some((c) => c === 'path' || c === 'spark' || c === 'free') ? ' reflow' : '';
  return `<div class="table${reflow}" data-table="${t.id}">${title}
<div class="scroll"><table>
<thead>${headRow}</thead>
<tbody>
${rows}
</tbody>
</table></div>${notes}</div>`;
}

const CSS = `
:root {
  --fg: #1e293b; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; --panel: #ffffff;
  --up: #15803d; --down: #b91c1c; --human: ${COLORS.human}; --ai: ${COLORS.ai}; --total: ${COLORS.total};
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body {
  margin: 0 auto; max-width: 1040px; padding: 32px 24px 48px;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  -webkit-font-smoothing: antialiased;
}
h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 22px; margin: 0 0 4px; }
h2 code { font-size: 0.95em; }
h3 { font-size: 16px; margin: 0 0 8px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.92em; }
.meta { color: var(--muted); margin: 0 0 20px; font-size: 14px; }
header.page { margin-bottom: 24px; }
section.project { margin-bottom: 56px; }
section.project + section.project { border-top: 2px solid var(--line); padding-top: 32px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px; margin: 0 0 24px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
.card .label { color: var(--muted); font-size: 13px; }
.card .value { font-size: 30px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; margin: 4px 0 2px; }
.card .sub { font-size: 13px; color: var(--muted); }
.card .delta { font-size: 13px; margin-top: 6px; }
figure.chart, .table { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin: 0 0 20px; }
figure.chart svg { display: block; width: 100%; height: auto; margin-top: 8px; overflow: visible; }
figcaption { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 16px; }
figcaption .title { font-weight: 650; font-size: 16px; }
figcaption .hint { color: var(--muted); font-size: 13px; flex-basis: 100%; }
.legend { display: inline-flex; gap: 14px; font-size: 13px; }
.key { display: inline-flex; align-items: center; gap: 5px; }
.key i { display: inline-block; width: 14px; height: 10px; border-radius: 2px; }
/* A table wider than its box scrolls inside it, and a shadow shows at each edge that hides
   columns: the panel-coloured covers scroll with the table (local) and hide the fixed shadows
   (scroll) only while the table's own edge is there. Row stripes are translucent to let it show. */
.scroll {
  overflow-x: auto;
  background:
    linear-gradient(to right, var(--panel) 40%, rgb(255 255 255 / 0)) left center / 28px 100% no-repeat local,
    linear-gradient(to left, var(--panel) 40%, rgb(255 255 255 / 0)) right center / 28px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgb(15 23 42 / 0.3), rgb(15 23 42 / 0)) left center / 14px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgb(15 23 42 / 0.3), rgb(15 23 42 / 0)) right center / 14px 100% no-repeat scroll;
}
table { border-collapse: collapse; width: 100%; font-size: 14px; font-variant-numeric: tabular-nums; }
th { color: var(--muted); font-weight: 500; text-align: left; border-bottom: 1px solid var(--line); padding: 6px 10px; white-space: nowrap; }
td { padding: 5px 10px; border-bottom: 1px solid #f1f5f9; vertical-align: top; }
tbody tr:nth-child(even) td { background: rgb(226 232 240 / 0.18); }
tbody tr:hover td { background: rgb(226 232 240 / 0.6); }
.num { text-align: right; white-space: nowrap; }
td.path { word-break: break-all; min-width: 14em; }
td.path code { font-size: 13px; }
td.label { white-space: nowrap; }
td.free { min-width: 16em; overflow-wrap: anywhere; }
[data-table="feedback-open"] td { overflow-wrap: anywhere; }
.strong { font-weight: 650; }
.muted, .flat { color: var(--muted); }
.up { color: var(--up); }
.down { color: var(--down); }
td.total { color: var(--total); }
td.human { color: var(--human); }
td.ai { color: var(--ai); }
td.total, td.human, td.ai { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: -0.05em; white-space: nowrap; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
.empty { color: var(--muted); }
footer { color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); padding-top: 16px; }
/* Phones: the narrow drawing of each chart (real 12-px text), tables with a path or a sparkline
   folded so that every row is the path (or sparkline) on a line of its own plus the numbers in
   even columns below. Minor columns (a week's start date, also in its name) give way. Anything
   still too wide scrolls sideways inside its box, never the page. */
.plot.narrow { display: none; }
@media (max-width: 640px) {
  body { padding: 20px 12px 32px; font-size: 14px; }
  h1 { font-size: 22px; }
  h2 { font-size: 19px; }
  figure.chart, .table { padding: 12px 10px; }
  .plot.wide { display: none; }
  .plot.narrow { display: block; }
  .legend { flex-wrap: wrap; gap: 4px 12px; }
  table { font-size: 13px; }
  th, th.num { white-space: normal; font-size: 12px; }
  th, td { padding: 4px 4px; }
  .minor { display: none; }
  .reflow table, .reflow thead, .reflow tbody { display: block; }
  .reflow tr { display: flex; flex-wrap: wrap; border-bottom: 1px solid #f1f5f9; }
  .reflow th, .reflow td { flex: 1 1 0; min-width: 0; padding: 3px 4px; border-bottom: 0; }
  .reflow .path { flex-basis: 100%; order: -1; min-width: 0; }
  .reflow .spark { flex-basis: 100%; order: 1; overflow-x: auto; }
  .reflow .free { flex-basis: 100%; order: 2; min-width: 0; }
  .reflow thead tr { border-bottom: 1px solid var(--line); }
}
@media print { body { max-width: none; } figure.chart, .table, .card { break-inside: avoid; } }
`;
