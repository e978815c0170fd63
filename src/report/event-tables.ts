import { formatCount, formatIsoWeek, formatShare, plural } from './format.js';
import { windowSeries, type AssistantDay, type ProjectReport } from './model.js';
import { sparkline } from './sparkline.js';
import { head, label, num, type Cell, type Table, type TableOptions } from './tables.js';
import { inert, oneLine, truncateEnd } from './text.js';

/**
 * The tables of the feedback and assistant sections, each only when the section was gathered
 * (the stream has a loaded window). Comments and questions are user input: flattened to one line,
 * control characters shown as escapes, cut to COMMENT_WIDTH here, and escaped by the HTML renderer.
 */

/** Most columns of a comment or question shown; the --json data keeps the whole text. */
export const COMMENT_WIDTH = 160;

function userText(text: string | null): Cell {
  if (text === null || oneLine(text) === '') return { text: '–', tone: 'muted', free: true };
  // Control characters are made visible (\x1b) for the HTML page too, not only for the terminal.
  return { text: truncateEnd(inert(oneLine(text)), COMMENT_WIDTH), free: true };
}

export function eventTables(p: ProjectReport, opts: TableOptions = {}): Table[] {
  return [
    ...(p.feedback ? [feedbackOpenTable(p), feedbackThumbsTable(p)] : []),
    ...(p.assistant ? [assistantTable(p, opts), unansweredTable(p)] : []),
  ];
}

const STATUS: Record<string, string> = { pending: 'pending', in_progress: 'in progress' };

export function feedbackOpenTable(p: ProjectReport): Table {
  const f = p.feedback;
  if (!f) throw new Error('no feedback section');
  const contacts = f.personalData;
  const notes = [
    `${plural(f.openCount, 'open item')} (${formatCount(f.pendingCount)} pending, ${formatCount(f.inProgressCount)} in progress) on ${plural(f.openPages, 'page')}; "on page": open items of that page. Age: days since the feedback was given. Statuses are as last read: sync re-reads a month for --feedback-lookback days (30) after it ends; --refresh re-reads them all.`,
  ];
  notes.push(
    contacts
      ? 'Contacts are personal data (--include-personal-data): share this report only with people allowed to see them.'
      : 'Contacts are personal data and left out: --include-personal-data shows them.',
  );
  return {
    id: 'feedback-open',
    title: `Open feedback, oldest first${f.open.length < f.openCount ? ` (${f.open.length} of ${formatCount(f.openCount)})` : ''}`,
    head: [
      head('age'),
      head('path', false),
      head('on page'),
      head('status', false),
      head('comment', false),
      ...(contacts ? [head('contact', false)] : []),
    ],
    rows: f.open.map((item) => [
      num(
        item.ageDays === null ? '–' : `${formatCount(item.ageDays)}d`,
        item.ageDays === null ? 'muted' : undefined,
      ),
      { text: item.path, path: true },
      num(formatCount(item.pageOpen), 'muted'),
      { text: STATUS[item.status] ?? item.status, tone: item.status === 'pending' ? 'strong' : undefined },
      userText(item.comment),
      ...(contacts ? [{ text: item.contact ?? '–', tone: 'muted' as const }] : []),
    ]),
    notes,
    empty: 'no open feedback',
  };
}

export function feedbackThumbsTable(p: ProjectReport): Table {
  const f = p.feedback;
  if (!f) throw new Error('no feedback section');
  const short = f.weekly.some((w) => w.daysLoaded < 7);
  const notes = [
    `Helpful: thumbs up / (up + down) of contextual feedback, by the week it was given; ${formatShare(f.helpfulShare)} over these weeks (${formatCount(f.up)} up, ${formatCount(f.down)} down).`,
  ];
  if (short) {
    notes.push(
      `* fewer than 7 days of the week loaded (or after ${p.window.to}, the report's last day): its share is over those days only.`,
    );
  }
  return {
    id: 'feedback-thumbs',
    title: 'Helpful share of feedback per week',
    head: [
      head('week', false),
      head('starts', false),
      head('days'),
      head('up'),
      head('down'),
      head('helpful'),
    ],
    rows: f.weekly.map((w) => [
      label(formatIsoWeek(w.isoYear, w.isoWeek)),
      { text: w.weekStart, tone: 'muted', minor: true },
      num(
        w.daysLoaded < 7 ? `${w.daysLoaded}*` : String(w.daysLoaded),
        w.daysLoaded < 7 ? 'muted' : undefined,
      ),
      num(formatCount(w.up), 'up'),
      num(formatCount(w.down), 'down'),
      num(formatShare(w.helpfulShare), 'strong'),
    ]),
    notes,
    empty: 'no loaded feedback day in the report window',
  };
}

export function assistantTable(p: ProjectReport, opts: TableOptions = {}): Table {
  const a = p.assistant;
  if (!a) throw new Error('no assistant section');
  const l = a.latest;
  const w = a.last7;
  const spark = (pick: (d: AssistantDay) => number | null, tone: Cell['tone']): Cell => ({
    text: sparkline(windowSeries(p, a.daily, pick), opts.sparkWidth ?? Infinity),
    tone,
    spark: true,
  });
  const row = (
    name: string,
    dayCount: number,
    dayShare: number | null | undefined,
    weekCount: number,
    weekShare: number | null | undefined,
    trend: Cell,
    tone?: Cell['tone'],
  ): Cell[] => [
    label(name, tone),
    num(formatCount(dayCount), tone),
    num(dayShare === undefined ? '' : formatShare(dayShare), dayShare === undefined ? undefined : 'strong'),
    num(formatCount(weekCount), tone),
    num(
      weekShare === undefined ? '' : formatShare(weekShare),
      weekShare === undefined ? undefined : 'strong',
    ),
    trend,
  ];
  const notes = [
    `A turn is one question to the assistant; answered and clarifying are shares of the turns (the trend lines are the daily shares). Over ${plural(a.window.daysLoaded, 'loaded day')} of the window: ${formatCount(a.window.turns)} turns, ${formatShare(a.window.answeredShare)} answered, ${formatShare(a.window.clarifyingShare)} clarifying questions.`,
  ];
  if (w.daysLoaded < 7) notes.push(`Only ${w.daysLoaded} of the 7 days to ${l.day} are loaded.`);
  return {
    id: 'assistant',
    title: 'Assistant answers',
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
        'turns',
        l.turns,
        undefined,
        w.turns,
        undefined,
        spark((d) => d.turns, 'total'),
        'strong',
      ),
      row(
        'answered',
        l.answered,
        l.answeredShare,
        w.answered,
        w.answeredShare,
        spark((d) => d.answeredShare, 'up'),
      ),
      row(
        'clarifying',
        l.clarifying,
        l.clarifyingShare,
        w.clarifying,
        w.clarifyingShare,
        spark((d) => d.clarifyingShare, 'muted'),
      ),
    ],
    notes,
  };
}

export function unansweredTable(p: ProjectReport): Table {
  const a = p.assistant;
  if (!a) throw new Error('no assistant section');
  return {
    id: 'assistant-unanswered',
    title: `Unanswered assistant questions, ${p.window.from} to ${p.window.to}`,
    head: [head('#'), head('asked'), head('threads'), head('question', false)],
    rows: a.unanswered.map((q, i) => [
      num(String(i + 1), 'muted'),
      num(formatCount(q.count), 'strong'),
      num(formatCount(q.threads), 'muted'),
      userText(q.query),
    ]),
    notes: [
      `${plural(a.unansweredDistinct, 'distinct question')} went unanswered in ${plural(a.window.daysLoaded, 'loaded day')}, grouped ignoring case and spacing (the most frequent spelling shown), most asked first: the docs gaps readers ask about.`,
    ],
    empty: 'no unanswered question in the window',
  };
}
