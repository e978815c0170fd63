import type { Change, Digest } from '../insights/digest.js';
import type { EventStreamSection } from '../insights/event-stream.js';

/** The digest's wording, shared by the Markdown and the HTML so that both say the same. */
export function fmt(v: number | null): string {
  return v === null ? '–' : Math.round(v).toLocaleString('en-US');
}

/** A fix's measure is a rate per day (0.5 questions a day): two decimals. */
function measure(v: number | null): string {
  return v === null ? '–' : String(Math.round(v * 100) / 100);
}

export function changeText(c: Change): string {
  if (c.now === null) return 'not loaded';
  const pct =
    c.changePct !== null
      ? ` (${c.changePct > 0 ? '+' : ''}${c.changePct}% vs the week before)`
      : c.days === 7 && c.daysBefore < 7
        ? ` (the week before not loaded: ${c.daysBefore} of 7 days)`
        : '';
  return `${fmt(c.now)}${pct}${c.days < 7 ? `, ${c.days} of 7 days loaded` : ''}`;
}

/** What a section comparing with the week before says when that week is not loaded whole. */
const WEEK_BEFORE_NOT_LOADED = 'not loaded: the week before is not loaded whole, so nothing is compared';

export function title(d: Digest): string {
  return `Docs week ${d.week} · ${d.projectId} · ${d.weekStart} to ${d.weekEnd}`;
}

export interface Section {
  readonly heading: string;
  readonly items: readonly string[];
  /** Text shown in place of the items when there are none. */
  readonly empty: string;
}

const pct = (v: number | null): string => (v === null ? '–' : `${Math.round(v * 1000) / 10}%`);

/**
 * The event stream's lines (sync --events): true uniques of the week and of the 28 days to its
 * end, then the week's traffic classes, referrers and funnels. Referrer hosts are readers' data:
 * the HTML escapes every item, the Markdown its asterisks.
 */
function eventStreamItems(e: EventStreamSection): string[] {
  const classes = e.traffic
    .filter((t) => t.views > 0)
    .map((t) => `${t.trafficClass} ${pct(t.share)}`)
    .join(', ');
  return [
    ...e.visitors.map(
      (v) => `Unique visitors ${v.from} to ${v.to}: ${fmt(v.total)} (${fmt(v.human)} human, ${fmt(v.ai)} AI)`,
    ),
    `Page views: ${fmt(e.pageViews)}${classes === '' ? '' : ` (${classes})`}`,
    `Top referrers: ${e.referrers.length === 0 ? 'none' : e.referrers.map((r) => `${r.host} ${fmt(r.views)}`).join(', ')}`,
    `Search: ${fmt(e.search.queries)} queries, ${fmt(e.search.resultClicks)} result clicks, ${fmt(e.search.closedWithoutClick)} closed without a click`,
    `Assistant: ${fmt(e.assistant.entered)} entered, ${fmt(e.assistant.completed)} completed, ${fmt(e.assistant.sourceClicked)} source clicked`,
  ];
}

export function sections(d: Digest): Section[] {
  return [
    {
      heading: 'At a glance',
      items: [`Human visitor-days: ${changeText(d.visitors)}`, `Human views: ${changeText(d.views)}`],
      empty: '',
    },
    {
      heading: 'Pages up',
      items: (d.moversUp ?? []).map((m) => `${m.path}: ${fmt(m.now)} (+${fmt(m.change)})`),
      empty: d.moversUp === null ? WEEK_BEFORE_NOT_LOADED : 'none',
    },
    {
      heading: 'Pages down',
      items: (d.moversDown ?? []).map((m) => `${m.path}: ${fmt(m.now)} (${fmt(m.change)})`),
      empty: d.moversDown === null ? WEEK_BEFORE_NOT_LOADED : 'none',
    },
    {
      heading: 'Top searches',
      items: d.topSearches.map((s) => `"${s.query}": ${fmt(s.searches)} searches, ${pct(s.ctr)} clicked`),
      empty: 'no searches loaded',
    },
    {
      heading: 'New searches without a click',
      items: (d.newZeroClick ?? []).map((s) => `"${s.query}": ${fmt(s.searches)} searches, none clicked`),
      empty: d.newZeroClick === null ? WEEK_BEFORE_NOT_LOADED : 'none',
    },
    {
      heading: 'Feedback',
      items:
        d.feedback === null
          ? []
          : [
              `${fmt(d.feedback.received)} received (${fmt(d.feedback.thumbsDown)} thumbs-down, ${fmt(d.feedback.comments)} with a comment)`,
              `${fmt(d.feedback.stillOpen)} still open`,
            ],
      empty: 'feedback is not synced',
    },
    {
      heading: 'Assistant',
      items:
        d.assistant === null
          ? []
          : [
              `${fmt(d.assistant.questions)} questions, ${fmt(d.assistant.unanswered)} unanswered (${d.assistant.unansweredPct ?? '–'}%)`,
            ],
      empty: 'the assistant is not synced',
    },
    {
      heading: 'Top content gaps',
      items: d.gaps.map(
        (g) =>
          `${g.kind}: ${g.subject} (${g.currentCount} this week, ${g.trend ?? 'the week before not loaded'}) · ${g.gapId}`,
      ),
      empty: 'none',
    },
    {
      heading: 'Fixes and their effect',
      items: d.fixes.map(
        (f) =>
          `${f.kind} "${f.subject}": ${f.verdict} (${measure(f.before)} before, ${measure(f.after)} after)${f.prLink === null ? '' : ` ${f.prLink}`}`,
      ),
      empty: 'no fix measured yet',
    },
    ...(d.eventStream
      ? [{ heading: 'Event stream', items: eventStreamItems(d.eventStream), empty: '' }]
      : []),
  ];
}
