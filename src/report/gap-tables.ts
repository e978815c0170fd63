import { SCORE_RULE, trendText, type GapOutcome } from '../insights/gaps.js';
import { formatChange, formatCount, formatShare } from './format.js';
import type { ProjectReport } from './model.js';
import { change, head, num, type Cell, type Table, type Tone } from './tables.js';
import { inert, oneLine, truncateEnd } from './text.js';

/** A gap's subject is a question, a search term or a path: user input, shown inert on one line. */
const SUBJECT_WIDTH = 80;

function subject(text: string): Cell {
  return { text: truncateEnd(inert(oneLine(text)), SUBJECT_WIDTH), free: true };
}

const TREND_TONE: Record<string, Tone> = { new: 'down', worse: 'down', same: 'flat', better: 'up' };
const VERDICT_TONE: Record<GapOutcome['verdict'], Tone> = {
  improved: 'up',
  worse: 'down',
  same: 'flat',
  'too little data': 'muted',
};

/** The content gaps and the fixes' effect, each only when there is something to show. */
export function gapTables(p: ProjectReport): Table[] {
  const g = p.gaps;
  if (!g) return [];
  return [contentGapsTable(p), ...(g.outcomes.length > 0 ? [outcomesTable(p)] : [])];
}

export function contentGapsTable(p: ProjectReport): Table {
  const gaps = p.gaps?.gaps ?? [];
  return {
    id: 'content-gaps',
    title: `Content gaps, ${p.window.from} to ${p.window.to}`,
    head: [
      head('#'),
      head('kind', false),
      head('subject', false),
      head('now'),
      head('before'),
      head('trend', false),
      head('score'),
      head('gap', false),
    ],
    rows: gaps.map((x) => [
      num(String(x.rank), 'muted'),
      { text: x.kind },
      subject(x.subject),
      num(formatCount(x.currentCount), 'strong'),
      num(x.previousCount === null ? 'not loaded' : formatCount(x.previousCount), 'muted'),
      {
        text: x.fix !== null ? `${trendText(x)}, fix ${x.fix.status ?? 'sent'}` : trendText(x),
        tone: x.trend === null ? 'muted' : TREND_TONE[x.trend],
      },
      num(String(x.score)),
      { text: x.gapId, tone: 'muted', minor: true },
    ]),
    notes: [
      `What the docs fail to answer, ranked across kinds: unanswered (questions the assistant could not answer), search (terms searched with almost no clicks), flagged (pages with thumbs-down and comments), losing (pages losing human readers). "now" against the same number of days before. The ${SCORE_RULE}. Fix one: mintlify-etl agent fix GAP_ID --dry-run.`,
    ],
    empty: 'no content gap in the window',
  };
}

export function outcomesTable(p: ProjectReport): Table {
  const outcomes = p.gaps?.outcomes ?? [];
  const value = (o: GapOutcome, v: number | null): string =>
    v === null ? '–' : o.kind === 'search' ? formatShare(v) : v.toFixed(1);
  return {
    id: 'fix-outcomes',
    title: 'Fixes and their effect',
    head: [
      head('kind', false),
      head('subject', false),
      head('before'),
      head('after'),
      head('change'),
      head('verdict', false),
      head('pull request', false),
    ],
    rows: outcomes.map((o) => [
      { text: o.kind },
      subject(o.subject),
      num(value(o, o.before), 'muted'),
      num(value(o, o.after), 'strong'),
      o.changePct === null ? num(formatChange(null), 'muted') : change(o.changePct),
      { text: o.verdict, tone: VERDICT_TONE[o.verdict] },
      { text: o.prLink, minor: true },
    ]),
    notes: [
      'Each gap an agent job fixed (mintlify-etl agent fix) whose job completed with a pull request: its own measure over the 14 days before the job and the 14 days after it completed (unanswered turns per day, share of searches without a click, flags per day, human views per day). Improved or worse: a move of 20% or more; too little data: fewer than 7 loaded days on either side.',
    ],
  };
}
