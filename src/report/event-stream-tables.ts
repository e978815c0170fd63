import type { EventStreamSection } from '../insights/event-stream.js';
import { formatCount, formatShare } from './format.js';
import { head, label, num, type Cell, type Table } from './tables.js';
import { inert, oneLine, truncateEnd } from './text.js';

/**
 * The tables of the event-stream section (sync --events), only when the project has events.
 * Referrer hosts come from readers' browsers: flattened, control characters made visible, cut
 * for the terminal here, and escaped by the HTML renderer like every cell.
 */

/** Most columns of a referrer host shown. */
const HOST_WIDTH = 80;

const CLASS_LABELS: Record<string, string> = {
  human: 'human',
  ai_answers: 'AI answers',
  search_index: 'search index',
  training: 'AI training',
  other_bot: 'other bots',
};

export function eventStreamTables(e: EventStreamSection | undefined): Table[] {
  if (!e) return [];
  return [visitorsTable(e), trafficTable(e), referrersTable(e), funnelsTable(e)];
}

function visitorsTable(e: EventStreamSection): Table {
  return {
    id: 'event-visitors',
    title: 'Event stream: unique visitors',
    head: [head('period', false), head('days'), head('human'), head('AI'), head('total')],
    rows: e.visitors.map((v) => [
      label(`${v.from} to ${v.to}`),
      num(String(v.days)),
      num(formatCount(v.human)),
      num(formatCount(v.ai)),
      num(formatCount(v.total), 'strong'),
    ]),
    notes: [
      'From the raw event stream: each visitor counted once in the whole period (not a sum of daily uniques); total counts a visitor seen as human and as AI once.',
      ...(e.startsOn !== undefined ? [`The event stream starts on ${e.startsOn}: periods start there.`] : []),
    ],
  };
}

function trafficTable(e: EventStreamSection): Table {
  return {
    id: 'event-traffic',
    title: `Event stream: page views by traffic class, ${e.from} to ${e.to}`,
    head: [head('class', false), head('page views'), head('share')],
    rows: e.traffic.map((t) => [
      label(CLASS_LABELS[t.trafficClass] ?? t.trafficClass),
      num(formatCount(t.views)),
      num(formatShare(t.share)),
    ]),
    notes: [`${formatCount(e.pageViews)} page views in all; the class comes from the user agent.`],
  };
}

function hostCell(host: string): Cell {
  return { text: truncateEnd(inert(oneLine(host)), HOST_WIDTH), free: true };
}

function referrersTable(e: EventStreamSection): Table {
  return {
    id: 'event-referrers',
    title: `Event stream: top referrers, ${e.from} to ${e.to}`,
    head: [head('referrer host', false), head('page views'), head('human')],
    rows: e.referrers.map((r) => [
      hostCell(r.host),
      num(formatCount(r.views)),
      num(formatCount(r.humanViews)),
    ]),
    notes: [],
    empty: 'no page view came with a referrer',
  };
}

function funnelsTable(e: EventStreamSection): Table {
  const step = (funnel: string, what: string, n: number): Cell[] => [
    label(funnel),
    { text: what },
    num(formatCount(n)),
  ];
  return {
    id: 'event-funnels',
    title: `Event stream: search and assistant, ${e.from} to ${e.to}`,
    head: [head('', false), head('step', false), head('events')],
    rows: [
      step('search', 'queries', e.search.queries),
      step('search', 'result clicks', e.search.resultClicks),
      step('search', 'closed without a click', e.search.closedWithoutClick),
      step('assistant', 'entered', e.assistant.entered),
      step('assistant', 'completed', e.assistant.completed),
      step('assistant', 'source clicked', e.assistant.sourceClicked),
    ],
    notes: [],
  };
}
