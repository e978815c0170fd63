import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { COMMENT_WIDTH } from '../../src/report/event-tables.js';
import { renderHtml } from '../../src/report/html.js';
import type { ProjectReport } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { displayWidth, oneLine, truncateEnd } from '../../src/report/text.js';
import { makeAssistant, makeFeedback, makeProject, makeReport, makeUnique } from '../helpers/report-model.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const NASTY = `<script>alert("x")</script>\r\n it's "broken" & <b>bold</b>`;
const LONG = `${'word '.repeat(60)}END`;

function withEvents(overrides: Partial<ProjectReport> = {}): ProjectReport {
  return {
    ...makeProject({ days: 7 }),
    feedback: makeFeedback([NASTY, LONG, null, '\x1b]0;title\x07ok']),
    assistant: makeAssistant(['How do I rotate keys?', NASTY]),
    uniques: {
      week: makeUnique('2026-02-23', '2026-W09', 1200),
      weekPartial: makeUnique('2026-03-02', '2026-W10', 300, true),
      month: makeUnique('2026-02-01', '2026-02', 4000),
    },
    ...overrides,
  };
}

/** The lines of the table whose title starts with `title`, title included, up to the blank line. */
function section(out: string, title: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l === '');
  return lines.slice(start, end === -1 ? undefined : end);
}

describe('oneLine and truncateEnd', () => {
  it('puts user text on one line and cuts its end at whole graphemes', () => {
    expect(oneLine(' a\r\n\tb  c \n')).toBe('a b c');
    expect(truncateEnd('abcdef', 6)).toBe('abcdef');
    expect(truncateEnd('abcdef', 4)).toBe('abc…');
    expect(truncateEnd('ab cdef', 4)).toBe('ab…');
    expect(truncateEnd('日本語です', 5)).toBe('日本…');
    expect(displayWidth(truncateEnd('👍🏽👍🏽👍🏽', 4))).toBeLessThanOrEqual(4);
  });
});

describe('the terminal report of feedback, assistant and unique visitors', () => {
  it('prints the open items with age, status and the comment on one line, cut to fit', () => {
    const out = renderTerminal(makeReport([withEvents()]), { color: false, width: 100 });
    const lines = section(out, 'Open feedback');
    expect(lines[0]).toBe('Open feedback, oldest first');
    expect(lines[1]).toMatch(/^ {2}age {2}path +on page {2}status {7}comment$/);
    expect(lines[2]).toContain(`28d  /guides/page-0`);
    expect(lines[2]).toContain(`pending      <script>alert("x")</script> it's "broken" & <b>bold</b>`);
    expect(lines[3]).toMatch(/in progress {2}word word .*…$/);
    expect(lines[4]).toMatch(/pending {6}–$/);
    // An OSC sequence would retitle the terminal: it is shown, not sent.
    expect(lines[5]).toContain('\\x1b]0;title\\x07ok');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(100);
    expect(out).toContain('Contacts are personal data and left out: --include-personal-data shows them.');
    expect(out).not.toContain('contact ');
  });

  it('fits every line of the new tables in a 60-column terminal, in 80 with contacts', () => {
    const narrow = renderTerminal(makeReport([withEvents()]), { color: false, width: 60 });
    // The assistant table is laid out like the callers one: it needs 66 columns (checked at 80 below).
    for (const title of ['Open feedback', 'Helpful share', 'Unanswered assistant'])
      for (const line of section(narrow, title)) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
    const p = withEvents({
      feedback: makeFeedback([NASTY, LONG], { personalData: true }),
    });
    const out = renderTerminal(makeReport([p]), { color: false, width: 80 });
    for (const title of [
      'Open feedback',
      'Helpful share',
      'Assistant answers',
      'Unanswered assistant',
      'Unique visitors this',
    ])
      for (const line of section(out, title)) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(section(out, 'Open feedback')[1]).toMatch(/comment +contact$/);
    expect(out).toContain('reader0@example.com');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });

  it('shows the helpful share per week and the assistant shares with their trend', () => {
    const out = renderTerminal(makeReport([withEvents()]), { color: false, width: 100 });
    expect(section(out, 'Helpful share of feedback per week').slice(1, 3)).toEqual([
      '  week      starts      days  up  down  helpful',
      '  2026-W06  2026-02-02     7  30    10    75.0%',
    ]);
    expect(section(out, 'Assistant answers').slice(0, 5)).toEqual([
      'Assistant answers',
      '              2026-03-01  share  last 7 days  share  trend, 7 days',
      '  turns              100                 700         ▄▄▄▄▄▄▄',
      '  answered            80  80.0%          560  80.0%  ▄▄▄▄▄▄▄',
      '  clarifying           5   5.0%           35   5.0%  ▄▄▄▄▄▄▄',
    ]);
    expect(section(out, 'Unanswered assistant').slice(1, 4)).toEqual([
      '  #  asked  threads  question',
      '  1     20       18  How do I rotate keys?',
      `  2     19       17  <script>alert("x")</script> it's "broken" & <b>bold</b>`,
    ]);
  });

  it('says when fewer than 7 assistant days are loaded', () => {
    const p = withEvents({ assistant: makeAssistant([], '2026-03-01', 7, 5) });
    const out = renderTerminal(makeReport([p]), { color: false, width: 100 });
    expect(out).toContain('Only 5 of the 7 days to 2026-03-01 are loaded.');
    expect(section(out, 'Unanswered assistant')).toContain('  no unanswered question in the window');
  });

  it('shows a week in progress alone, labelled partial, with no change', () => {
    const p = withEvents({ uniques: { weekPartial: makeUnique('2026-03-02', '2026-W10', 300, true) } });
    const out = renderTerminal(makeReport([p]), { color: false, width: 100 });
    const lines = section(out, 'Unique visitors this week and this month');
    expect(lines[2]).toMatch(/^ {2}week +2026-W10 \(partial\) .* 300 +– +–$/);
    expect(lines).toHaveLength(3 + 2 + 2 + 1); // title, head, row, the uniques line and the settled line (each wrapped), the partial note
  });

  it('colours the new tables only when asked, with the same text otherwise', () => {
    const data = makeReport([withEvents()]);
    const plain = renderTerminal(data, { color: false });
    const coloured = renderTerminal(data, { color: true });
    expect(plain).not.toMatch(ANSI);
    expect(coloured.replace(ANSI, '')).toBe(plain);
  });
});

describe('the HTML report of feedback, assistant and unique visitors', () => {
  const html = renderHtml(makeReport([withEvents()]));
  const d = new JSDOM(html).window.document;

  it('escapes comments and questions, reading back as the text on one line', () => {
    expect(d.querySelectorAll('script, b')).toHaveLength(0);
    expect(html).not.toContain('<script>alert');
    const comments = [...d.querySelectorAll('[data-table="feedback-open"] td.free')].map(
      (td) => td.textContent,
    );
    expect(comments[0]).toBe(oneLine(NASTY));
    expect(comments[1]?.endsWith('…')).toBe(true);
    expect(displayWidth(comments[1] ?? '')).toBeLessThanOrEqual(COMMENT_WIDTH);
    expect(comments[2]).toBe('–');
    expect(comments[3]).toBe('\\x1b]0;title\\x07ok');
    const questions = [...d.querySelectorAll('[data-table="assistant-unanswered"] td.free')].map(
      (td) => td.textContent,
    );
    expect(questions).toEqual(['How do I rotate keys?', oneLine(NASTY)]);
  });

  it('folds the comment and question tables on phones', () => {
    for (const id of ['feedback-open', 'assistant-unanswered'])
      expect(d.querySelector(`[data-table="${id}"]`)?.classList.contains('reflow'), id).toBe(true);
  });

  it('has a contact column only with personal data', () => {
    const heads = (doc: Document) =>
      [...doc.querySelectorAll('[data-table="feedback-open"] th')].map((th) => th.textContent);
    expect(heads(d)).not.toContain('contact');
    const withContacts = renderHtml(
      makeReport([withEvents({ feedback: makeFeedback(['x'], { personalData: true }) })]),
    );
    const d2 = new JSDOM(withContacts).window.document;
    expect(heads(d2)).toContain('contact');
    expect(d2.querySelector('[data-table="feedback-open"] tbody td:last-child')?.textContent).toBe(
      'reader0@example.com',
    );
    expect(html).not.toContain('@example.com');
  });

  it('draws the feedback part with no open item and no week of thumbs in the window', () => {
    const empty = { ...makeFeedback([]), weekly: [], up: 0, down: 0, helpfulShare: null };
    const page = renderHtml(makeReport([withEvents({ feedback: empty, uniques: {} })]));
    const doc = new JSDOM(page).window.document;
    expect(doc.querySelector('[data-table="feedback-open"] .empty')?.textContent).toBe('no open feedback');
    expect(doc.querySelector('[data-table="feedback-thumbs"] .empty')?.textContent).toBe(
      'no loaded feedback day in the report window',
    );
    expect(doc.querySelectorAll('figure[data-chart="feedback"] svg')).toHaveLength(2);
    // A uniques section with no period in it: no card, and the table says so.
    expect(doc.querySelector('.cards.uniques')).toBeNull();
    expect(doc.querySelector('[data-table="uniques"] .empty')?.textContent).toBe('no week or month loaded');
  });

  it('gives cards for the last complete week and month of true uniques', () => {
    const cards = [...d.querySelectorAll('.cards.uniques .card')].map((c) => c.textContent);
    expect(cards).toHaveLength(2);
    expect(cards[0]).toContain('Unique visitors, week 2026-W09');
    expect(cards[0]).toContain('1,200');
    expect(cards[0]).toContain('2026-W10 so far (partial): 300');
    expect(cards[0]).toContain('+20.0%');
    expect(cards[1]).toContain('Unique visitors, month 2026-02');
  });
});
