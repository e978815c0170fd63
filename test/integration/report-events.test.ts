import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { gatherReport, type GatherOptions } from '../../src/report/data.js';
import { renderHtml } from '../../src/report/html.js';
import type { ProjectReport, ReportData } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { addDays } from '../../src/util/day.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import {
  assistantTurns,
  buildReportFixture,
  CONTROL_COMMENT,
  FEEDBACK_ROWS,
  FIXTURE_FIRST_DAY,
  FIXTURE_LAST_DAY,
  MONTHS,
  NASTY_COMMENT,
  NASTY_QUESTION,
  OTHER_CONTACT,
  ROTATE_SPELLINGS,
  SECRET_CONTACT,
  WEEK_STARTS,
  weeklyUniques,
  type FixtureOptions,
} from '../helpers/report-fixture.js';

const tmp = tempDir('mintlify-etl-report-events-');
afterAll(() => tmp.cleanup());

/** The report is built the morning after the fixture's last day. */
const NOW = new Date(`${addDays(FIXTURE_LAST_DAY, 1)}T06:00:00Z`);
const ALL: FixtureOptions = { feedback: true, assistant: true, periods: true };

let n = 0;
async function fixture(opts: FixtureOptions, sql: readonly string[] = []): Promise<string> {
  const file = `${tmp.dir}/db${n++}.duckdb`;
  await buildReportFixture(file, opts);
  if (sql.length > 0) {
    const db = await openDatabase(file);
    try {
      for (const s of sql) await db.connection.run(s);
    } finally {
      db.close();
    }
  }
  return file;
}

async function gather(file: string, opts: Partial<GatherOptions> = {}): Promise<ReportData> {
  const db = await openDatabase(file, { readOnly: true });
  try {
    return await gatherReport(duckSession(db.connection), { days: 28, now: NOW, ...opts });
  } finally {
    db.close();
  }
}

function only(data: ReportData): ProjectReport {
  const p = data.projects[0];
  if (!p) throw new Error('no project');
  return p;
}

const text = (data: ReportData, width = 100): string => renderTerminal(data, { color: false, width });

/** Day index of a day. */
const index = (day: string): number => (Date.parse(day) - Date.parse(FIXTURE_FIRST_DAY)) / 86_400_000;

describe('the feedback, assistant and unique-visitors sections, from a real database', () => {
  let data: ReportData;
  let withContacts: ReportData;
  let p: ProjectReport;
  beforeAll(async () => {
    const file = await fixture(ALL);
    data = await gather(file);
    withContacts = await gather(file, { includePersonalData: true });
    p = only(data);
  });

  it('has no such section, and the same text as before, when none of these streams is loaded', async () => {
    const plain = await gather(await fixture({}));
    const q = only(plain);
    expect(q.feedback).toBeUndefined();
    expect(q.assistant).toBeUndefined();
    expect(q.uniques).toBeUndefined();
    const out = text(plain);
    for (const title of [
      'Open feedback',
      'Helpful share',
      'Assistant answers',
      'unanswered',
      'Unique visitors this week',
    ])
      expect(out).not.toContain(title);
    expect(Object.keys(JSON.parse(JSON.stringify(q)) as object)).not.toEqual(
      expect.arrayContaining(['feedback']),
    );
  });

  it('shows a section only for the streams with a loaded window', async () => {
    // Rows without a loaded window (a failed sync left them, or they were loaded by hand) give no section.
    const file = await fixture(ALL, [
      "DELETE FROM sync_windows WHERE stream = 'feedback'",
      "UPDATE sync_windows SET status = 'failed' WHERE stream = 'assistant'",
    ]);
    const q = only(await gather(file));
    expect(q.feedback).toBeUndefined();
    expect(q.assistant).toBeUndefined();
    expect(q.uniques).toBeDefined();
    const fb = only(await gather(await fixture({ feedback: true })));
    expect(fb.feedback).toBeDefined();
    expect(fb.assistant).toBeUndefined();
    expect(fb.uniques).toBeUndefined();
  });

  it('lists the open feedback items oldest first (undated last), with age and open items of the page', () => {
    const f = p.feedback;
    const open = FEEDBACK_ROWS.filter((r) => r.status === 'pending' || r.status === 'in_progress');
    expect(f).toMatchObject({
      openCount: open.length,
      pendingCount: open.filter((r) => r.status === 'pending').length,
      inProgressCount: 1,
      openPages: new Set(open.map((r) => r.path)).size,
      personalData: false,
    });
    expect(f?.open.map((i) => i.id)).toEqual([
      'fb-open-1',
      'fb-open-2',
      'fb-open-3',
      'fb-open-4',
      'fb-open-5',
    ]);
    // fb-open-1 was given on day 10 at 10:00; the report is built on day 60 at 06:00.
    expect(f?.open[0]).toMatchObject({
      path: '/introduction',
      status: 'pending',
      comment: NASTY_COMMENT,
      createdAt: `${addDays(FIXTURE_FIRST_DAY, 10)}T10:00:00.000Z`,
      ageDays: 49,
      pageOpen: 2,
    });
    expect(f?.open[4]).toMatchObject({ id: 'fb-open-5', createdAt: null, ageDays: null, comment: null });
    for (const item of f?.open ?? []) expect(item).not.toHaveProperty('contact');
  });

  it('lists only the top N open items, and says how many there are', async () => {
    const q = only(await gather(await fixture({ feedback: true }), { topItems: 2 }));
    expect(q.feedback?.open.map((i) => i.id)).toEqual(['fb-open-1', 'fb-open-2']);
    expect(text({ ...data, projects: [q] })).toContain('Open feedback, oldest first (2 of 5)');
  });

  it('gives the helpful share of contextual feedback per ISO week of the window', () => {
    const f = p.feedback;
    // The window is 2026-02-03 to 2026-03-02: ISO weeks 6 to 10, the last one of 1 day.
    expect(f?.weekly.map((w) => [w.weekStart, w.daysLoaded])).toEqual([
      ['2026-02-02', 7],
      ['2026-02-09', 7],
      ['2026-02-16', 7],
      ['2026-02-23', 7],
      ['2026-03-02', 1],
    ]);
    for (const w of f?.weekly ?? []) {
      const first = index(w.weekStart);
      const rows = FEEDBACK_ROWS.filter(
        (r) =>
          r.source === 'contextual' &&
          r.helpful !== null &&
          r.day !== null &&
          r.day >= first &&
          r.day < first + 7,
      );
      const up = rows.filter((r) => r.helpful === true).length;
      const down = rows.filter((r) => r.helpful === false).length;
      expect([w.up, w.down], w.weekStart).toEqual([up, down]);
      expect(w.helpfulShare).toBeCloseTo(up / (up + down), 10);
    }
    // The open item fb-open-4 (helpful, day 55) counts among the votes of its week.
    const week9 = f?.weekly.find((w) => w.weekStart === '2026-02-23');
    expect(week9?.up).toBe([52, 53, 54, 55, 56, 57, 58].reduce((s, i) => s + 2 + (i % 3), 0) + 1);
    expect(f?.up).toBe(f?.weekly.reduce((s, w) => s + w.up, 0));
  });

  it('gives the answered and clarifying shares per day and over the last 7 days', () => {
    const a = p.assistant;
    const day = (i: number) => {
      const turns = assistantTurns(i);
      return {
        turns: turns.length,
        answered: turns.filter((t) => t.resolution === 'answered').length,
        clarifying: turns.filter((t) => t.responseType === 'clarifying_question').length,
      };
    };
    expect(a?.daily).toHaveLength(28);
    expect(a?.latest).toMatchObject({ day: FIXTURE_LAST_DAY, ...day(59) });
    expect(a?.latest.answeredShare).toBeCloseTo(day(59).answered / day(59).turns, 10);
    const sum = (k: 'turns' | 'answered' | 'clarifying', from: number, to: number) =>
      Array.from({ length: to - from }, (_, j) => day(from + j)[k]).reduce((s, x) => s + x, 0);
    expect(a?.last7).toMatchObject({
      from: '2026-02-24',
      to: FIXTURE_LAST_DAY,
      daysLoaded: 7,
      turns: sum('turns', 53, 60),
      answered: sum('answered', 53, 60),
      clarifying: 7,
      unanswered: sum('turns', 53, 60) - sum('answered', 53, 60),
    });
    expect(a?.window.turns).toBe(sum('turns', 32, 60));
    expect(a?.window.clarifyingShare).toBeCloseTo(28 / sum('turns', 32, 60), 10);
  });

  it('groups unanswered questions ignoring case and spacing, most asked first, in the most frequent spelling', () => {
    const a = p.assistant;
    // Days 32..59: one rotate question a day (spelling i % 3: 2 is the most frequent, 10 of 28);
    // on even days SSO (i % 4 = 0) or the nasty question, 7 each; the nasty one was asked last.
    expect(a?.unanswered).toEqual([
      { query: ROTATE_SPELLINGS[2], count: 28, threads: 28, lastAsked: `${FIXTURE_LAST_DAY}T09:30:00.000Z` },
      { query: NASTY_QUESTION, count: 7, threads: 7, lastAsked: '2026-03-01T09:31:00.000Z' },
      { query: 'SSO with Okta', count: 7, threads: 7, lastAsked: '2026-02-27T09:31:00.000Z' },
    ]);
    expect(a?.unansweredDistinct).toBe(3);
  });

  it('gives the true unique visitors of the last complete week and month, the partial ones after them, and the change', () => {
    const u = p.uniques;
    const last = WEEK_STARTS.length - 2;
    expect(u?.week).toMatchObject({
      periodStart: WEEK_STARTS[last],
      label: '2026-W09',
      total: weeklyUniques(last).total,
      partial: false,
      previousTotal: weeklyUniques(last - 1).total,
    });
    expect(u?.week?.totalChangePct).toBeCloseTo(
      weeklyUniques(last).total / weeklyUniques(last - 1).total - 1,
      10,
    );
    expect(u?.weekPartial).toMatchObject({
      label: '2026-W10',
      total: weeklyUniques(last + 1).total,
      partial: true,
      totalChangePct: null,
    });
    expect(u?.month).toMatchObject({
      label: '2026-02',
      total: MONTHS[1].total,
      previousTotal: MONTHS[0].total,
    });
    expect(u?.month?.totalChangePct).toBeCloseTo(0.1, 10);
    expect(u?.monthPartial).toMatchObject({ label: '2026-03', total: MONTHS[2].total, partial: true });
  });

  it('shows no change for a week whose previous week is missing or partial', async () => {
    const file = await fixture({ periods: true }, [
      "DELETE FROM site_weekly WHERE period_start = DATE '2026-02-16'",
      "UPDATE site_monthly SET partial = true WHERE period_start = DATE '2026-01-01'",
    ]);
    const u = only(await gather(file)).uniques;
    expect(u?.week).toMatchObject({ label: '2026-W09', previousTotal: null, totalChangePct: null });
    expect(u?.month).toMatchObject({ label: '2026-02', previousTotal: null, totalChangePct: null });
  });

  it('labels the true uniques as unique visitors of the period, and the sums of days as visitor-days', () => {
    const out = text(data);
    const lines = out.split('\n');
    const start = lines.indexOf('Unique visitors this week and this month');
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 6)).toEqual([
      '         period               human     AI   total  previous  change',
      '  week   2026-W09             3,560  1,410   4,920     4,810   +2.3%',
      '  week   2026-W10 (partial)   1,100    300   1,350     4,920       –',
      '  month  2026-02             12,000  5,000  16,500    15,000  +10.0%',
      '  month  2026-03 (partial)      900    250   1,120    16,500       –',
    ]);
    // One explanation, said once.
    const flat = out.replace(/\n {2}/g, ' ');
    expect(flat.split('count a reader once per period').length).toBe(2);
    expect(flat).toContain(
      'Unique visitors of a week or month count a reader once per period; the visitor-days figures elsewhere count a reader once per day they came.',
    );
    // The sums over days keep their name.
    expect(out).toContain('Weekly (ISO weeks, Monday to Sunday), in visitor-days');
    expect(out).toContain('Last 7 days vs the 7 before, in visitor-days');
    expect(out).not.toMatch(/weekly visitors|visitors this week \(/i);
  });

  it('prints the feedback and assistant sections with user text made inert and on one line', () => {
    const out = text(data, 120);
    expect(out).toContain('Open feedback, oldest first');
    expect(out).toContain('Helpful share of feedback per week');
    expect(out).toContain('Assistant answers');
    expect(out).toContain('Unanswered assistant questions, 2026-02-03 to 2026-03-02');
    // The newline of the comment is a space; the escape and the bidi override are shown, not obeyed.
    expect(out).toContain(`<script>alert("x")</script> it's "broken" see line 2`);
    expect(out).toContain('\\x1b[2Jcleared the screen\\u202e');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(out).not.toContain(CONTROL_COMMENT);
    // The long comment is cut, with an ellipsis, to the width of the terminal.
    const long = out.split('\n').find((l) => l.includes('This page explains')) ?? '';
    expect(long).toMatch(/…$/);
    expect(long.length).toBeLessThanOrEqual(120);
    expect(out).not.toContain('CLOSED');
    // The tab of the most frequent spelling is a space.
    expect(out).toMatch(/ {2}1 {5}28 {7}28 {2}How do I rotate api keys\?\n/);
  });

  it('never shows a contact by default: not in the text, the HTML or the JSON', () => {
    const out = text(data, 200);
    const html = renderHtml(data);
    const json = JSON.stringify(data);
    for (const contact of [SECRET_CONTACT, OTHER_CONTACT, 'voter', '@example.com']) {
      expect(out).not.toContain(contact);
      expect(html).not.toContain(contact);
      expect(json).not.toContain(contact);
    }
    expect(out).toContain('Contacts are personal data and left out: --include-personal-data shows them.');
  });

  it('shows the contacts beside the open items with --include-personal-data', () => {
    const f = only(withContacts).feedback;
    expect(f?.personalData).toBe(true);
    expect(f?.open.map((i) => i.contact)).toEqual([SECRET_CONTACT, null, null, OTHER_CONTACT, null]);
    const out = text(withContacts, 200);
    expect(out).toMatch(/49d .*pending .*<script>alert.* secret\.reader@example\.com\n/);
    const d = new JSDOM(renderHtml(withContacts)).window.document;
    const rows = [...d.querySelectorAll('[data-table="feedback-open"] tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    expect(rows[0]?.at(-1)).toBe(SECRET_CONTACT);
    expect(rows[3]?.at(-1)).toBe(OTHER_CONTACT);
    expect(JSON.stringify(withContacts)).toContain(SECRET_CONTACT);
    // Only the open items' contacts: the closed votes' contacts stay in the database.
    expect(JSON.stringify(withContacts)).not.toContain('voter');
  });

  it('escapes comments and questions in the HTML, with the charts of both sections', () => {
    const html = renderHtml(data);
    const d = new JSDOM(html).window.document;
    expect(d.querySelectorAll('script')).toHaveLength(0);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain(NASTY_QUESTION);
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; it&#39;s &quot;broken&quot; see line 2',
    );
    const streams = [...d.querySelectorAll('[data-stream]')].map((e) => e.getAttribute('data-stream'));
    expect(streams).toEqual(['feedback', 'assistant', 'gaps']);
    const comments = [...d.querySelectorAll('[data-table="feedback-open"] td.free')].map(
      (td) => td.textContent,
    );
    expect(comments[0]).toBe(`<script>alert("x")</script> it's "broken" see line 2`);
    // Control characters are shown as escapes on the page too.
    expect(comments[2]).toBe('\\x1b[2Jcleared the screen\\u202e');
    expect(comments[4]).toBe('–');
    const questions = [...d.querySelectorAll('[data-table="assistant-unanswered"] td.free')].map(
      (td) => td.textContent,
    );
    expect(questions).toEqual(['How do I rotate api keys?', NASTY_QUESTION, 'SSO with Okta']);
    for (const id of ['feedback', 'assistant']) {
      expect(d.querySelectorAll(`figure[data-chart="${id}"] .plot.wide svg`), id).toHaveLength(1);
      expect(d.querySelectorAll(`figure[data-chart="${id}"] .plot.narrow svg`), id).toHaveLength(1);
    }
    // The uniques: a table after the visitor-days comparison, and cards.
    const tables = [...d.querySelectorAll('[data-table]')].map((t) => t.getAttribute('data-table'));
    expect(tables.slice(0, 4)).toEqual(['site', 'period', 'uniques', 'weekly']);
    const cards = [...d.querySelectorAll('.cards.uniques .card .label')].map((e) => e.textContent);
    expect(cards).toEqual(['Unique visitors, week 2026-W09', 'Unique visitors, month 2026-02']);
    // The one line that tells them from visitor-days, said once on the page.
    expect(d.body.textContent?.split('count a reader once per period').length).toBe(2);
  });

  it('leaves the HTML page of a project without these streams as it was', async () => {
    const html = renderHtml(await gather(await fixture({})));
    expect(html).not.toContain('data-stream');
    expect(html).not.toMatch(/Open feedback|Assistant answers|Unique visitors, week|once per period/);
  });
});
