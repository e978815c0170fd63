import { formatCount, formatRatio, formatShare, plural } from './format.js';
import { windowSeries, type CallerDay, type ProjectReport, type ViewsDay } from './model.js';
import { sparkline } from './sparkline.js';
import { change, head, label, num, type Cell, type Table, type TableOptions } from './tables.js';

/**
 * The tables of the streams besides visitors, each only when its section was gathered (the
 * stream is loaded): a report of a visitors-only database has none of them.
 */
export function streamTables(p: ProjectReport, opts: TableOptions = {}): Table[] {
  return [
    ...(p.views ? [viewsTable(p, opts), viewsPagesTable(p)] : []),
    ...(p.searches ? [searchTermsTable(p), searchGapsTable(p)] : []),
    ...(p.callers ? [callersTable(p, opts)] : []),
  ];
}

function spark<D extends { readonly day: string }>(
  p: ProjectReport,
  days: readonly D[],
  pick: (d: D) => number | null,
  opts: TableOptions,
  tone: Cell['tone'],
): Cell {
  return { text: sparkline(windowSeries(p, days, pick), opts.sparkWidth ?? Infinity), tone, spark: true };
}

export function viewsTable(p: ProjectReport, opts: TableOptions = {}): Table {
  const v = p.views;
  if (!v) throw new Error('no views section');
  const l = v.latest;
  // The view gives the 7-day average and the week-over-week change of the total only.
  const row = (name: Cell, pick: (d: ViewsDay) => number, total: boolean, tone: Cell['tone']): Cell[] => [
    name,
    num(formatCount(pick(l)), name.tone),
    total ? change(l.totalWowPct) : num(''),
    total ? num(formatCount(l.total7dAvg)) : num(''),
    spark(p, v.daily, pick, opts, tone),
  ];
  const notes = ['Views are events (page loads): they add up over days and pages, unlike unique visitors.'];
  if (l.total7dAvg === null) {
    notes.push(`The 7-day average needs the 7 days to ${l.day} loaded and complete.`);
  }
  return {
    id: 'views',
    title: 'Content views per day',
    head: [
      head('', false),
      head(l.day),
      head('vs week before'),
      head('7-day avg'),
      head(`trend, ${plural(p.window.days, 'day')}`, false),
    ],
    rows: [
      row(label('total', 'strong'), (d) => d.total, true, 'total'),
      row(label('human'), (d) => d.human, false, 'human'),
      row(label('AI'), (d) => d.ai, false, 'ai'),
      [
        label('per visitor'),
        num(formatRatio(l.viewsPerVisitor)),
        num(''),
        num(formatRatio(v.viewsPerVisitor7d)),
        spark(p, v.daily, (d) => d.viewsPerVisitor, opts, 'muted'),
      ],
    ],
    notes: [
      ...notes,
      'Views per visitor: views / unique visitors of the same day (7-day: views / visitor-days); – where a day of either stream is missing or partial.',
    ],
  };
}

export function viewsPagesTable(p: ProjectReport): Table {
  const v = p.views;
  if (!v) throw new Error('no views section');
  const uneven = v.last7.daysLoaded < 7 || v.prev7.daysLoaded < 7;
  return {
    id: 'views-pages',
    title: `Top pages by views, last 7 days to ${v.last7.to}`,
    head: [head('#'), head('path', false), head('views'), head('before'), head('vs previous 7')],
    rows: v.topPages.map((t) => [
      num(String(t.rank), 'muted'),
      { text: t.path, path: true },
      num(formatCount(t.views7d), 'strong'),
      num(formatCount(t.viewsPrev7d), 'muted'),
      t.viewsPrev7d === 0 && !uneven ? num('new', 'up') : change(t.changePct),
    ]),
    notes: uneven
      ? [
          `Only ${v.last7.daysLoaded} and ${v.prev7.daysLoaded} of 7 days of views are loaded: no change is shown.`,
        ]
      : [],
    empty: 'no page views in the last 7 days',
  };
}

export function searchTermsTable(p: ProjectReport): Table {
  const s = p.searches;
  if (!s) throw new Error('no searches section');
  const notes = [
    `${formatCount(s.searches7d)} searches in the 7 days, terms not listed included. CTR: the part of a term's searches followed by a click, weighted by searches.`,
  ];
  if (s.daysLoaded7d < 7 || s.daysLoadedPrev7d < 7) {
    notes.push(`Only ${s.daysLoaded7d} and ${s.daysLoadedPrev7d} of 7 days are loaded: no change is shown.`);
  }
  if (s.truncatedDays28d > 0) {
    notes.push(
      `${plural(s.truncatedDays28d, 'day')} of the last 28 had the term list cut short by a page cap (--max-pages): rarer terms may be missing or low, and no change is shown when such a day is in the last 14.`,
    );
  }
  return {
    id: 'search-terms',
    title: `Top searches, last 7 days to ${s.lastDay}`,
    head: [head('#'), head('query', false), head('searches'), head('CTR'), head('vs previous 7')],
    rows: s.topTerms.map((t, i) => [
      num(String(i + 1), 'muted'),
      { text: t.query, path: true },
      num(formatCount(t.hits7d), 'strong'),
      num(formatShare(t.ctr7d)),
      t.hitsPrev7d === 0 && t.hitsChangePct === null && s.daysLoadedPrev7d === 7
        ? num('new', 'up')
        : change(t.hitsChangePct),
    ]),
    notes,
    empty: 'no search in the last 7 days',
  };
}

export function searchGapsTable(p: ProjectReport): Table {
  const s = p.searches;
  if (!s) throw new Error('no searches section');
  return {
    id: 'search-gaps',
    title: `Searches with low CTR (docs gaps), 28 days to ${s.lastDay}`,
    head: [head('query', false), head('searches'), head('CTR'), head('zero-click')],
    rows: s.gaps.map((t) => [
      { text: t.query, path: true },
      num(formatCount(t.hits28d), 'strong'),
      num(formatShare(t.ctr28d)),
      num(formatShare(t.zeroClickShare28d)),
    ]),
    notes: [
      `Terms searched ${s.gapMinHits} times or more in ${plural(s.daysLoaded28d, 'loaded day')} (with fewer, one search moves the CTR by 5 points or more) and clicked less than the average term (${formatShare(s.ctr28d)}), lowest CTR first. Zero-click: the part of the searches on days when none for the term was clicked.`,
    ],
    empty: `no term searched ${s.gapMinHits} times or more has a CTR below the average (${formatShare(s.ctr28d)})`,
  };
}

export function callersTable(p: ProjectReport, opts: TableOptions = {}): Table {
  const c = p.callers;
  if (!c) throw new Error('no callers section');
  const l = c.latest;
  const w = c.last7;
  const row = (
    name: string,
    pick: (d: CallerDay) => number,
    share: ((d: CallerDay) => number | null) | undefined,
    tone?: Cell['tone'],
  ): Cell[] => [
    label(name, tone),
    num(formatCount(pick(l)), tone),
    num(share ? formatShare(share(l)) : '', 'muted'),
    num(formatCount(pick(w)), tone),
    num(share ? formatShare(share(w)) : '', 'muted'),
    spark(p, c.daily, pick, opts, tone === 'strong' ? 'total' : undefined),
  ];
  return {
    id: 'callers',
    title: 'Assistant queries by caller',
    head: [
      head('', false),
      head(l.day),
      head('share'),
      head('last 7 days'),
      head('share'),
      head(`trend, ${plural(p.window.days, 'day')}`, false),
    ],
    rows: [
      row(
        'web',
        (d) => d.web,
        (d) => d.webShare,
      ),
      row(
        'API',
        (d) => d.api,
        (d) => d.apiShare,
      ),
      row(
        'other',
        (d) => d.other,
        (d) => d.otherShare,
      ),
      row('total', (d) => d.total, undefined, 'strong'),
    ],
    notes: [
      `Queries are events: they add up over days.${w.daysLoaded < 7 ? ` Only ${w.daysLoaded} of the 7 days are loaded.` : ''}`,
    ],
  };
}
