import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import type { ProjectReport } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { displayWidth } from '../../src/report/text.js';
import {
  makeCallers,
  makeProject,
  makeReport,
  makeSearches,
  makeTerm,
  makeViews,
} from '../helpers/report-model.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const NASTY_QUERY = `<script>"x"&'y'`;
const TITLES = [
  'Content views per day',
  'Top pages by views',
  'Top searches',
  'Searches with low CTR',
  'Assistant queries by caller',
];

/** A 7-day report with every stream loaded, or only those named. */
function withStreams(
  only: readonly ('views' | 'searches' | 'callers')[] = ['views', 'searches', 'callers'],
): ProjectReport {
  const terms = [makeTerm('install', 50, 0.6), makeTerm(NASTY_QUERY, 10, 0)];
  return {
    ...makeProject({ days: 7 }),
    ...(only.includes('views') ? { views: makeViews('2026-03-01', 7) } : {}),
    ...(only.includes('searches') ? { searches: makeSearches(terms) } : {}),
    ...(only.includes('callers') ? { callers: makeCallers('2026-03-01', 7) } : {}),
  };
}

/** The lines of the section whose title starts with `title`, title included, up to the blank line. */
function section(out: string, title: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l === '');
  return lines.slice(start, end === -1 ? undefined : end);
}

describe('the terminal report of the other streams', () => {
  it('shows only the sections of the streams that are loaded, none for visitors alone', () => {
    const alone = renderTerminal(makeReport([makeProject()]), { color: false });
    for (const title of TITLES) expect(alone).not.toContain(title);
    const out = renderTerminal(makeReport([withStreams(['searches'])]), { color: false });
    expect(out).toContain('Top searches, last 7 days to 2026-03-01');
    expect(out).toContain('Searches with low CTR (docs gaps), 28 days to 2026-03-01');
    expect(out).not.toContain('Content views per day');
    expect(out).not.toContain('Assistant queries by caller');
  });

  it('prints views per day with the 7-day average and views per visitor, and top pages by views', () => {
    const out = renderTerminal(makeReport([withStreams()]), { color: false, width: 80 });
    expect(section(out, 'Content views per day')).toEqual([
      'Content views per day',
      '               2026-03-01  vs week before  7-day avg  trend, 7 days',
      '  total             2,060           +4.0%      2,030  ▁▂▃▅▆▇█',
      '  human             1,545                             ▁▂▃▅▆▇█',
      '  AI                  515                             ▁▂▃▅▆▇█',
      '  per visitor         2.5                        2.3  ▄▄▄▄▄▄▄',
      '  Views are events (page loads): they add up over days and pages, unlike unique',
      '  visitors.',
      '  Views per visitor: views / unique visitors of the same day (7-day: views /',
      '  visitor-days); – where a day of either stream is missing or partial.',
    ]);
    expect(section(out, 'Top pages by views')).toEqual([
      'Top pages by views, last 7 days to 2026-03-01',
      '  #  path           views  before  vs previous 7',
      '  1  /introduction  4,000   3,200         +25.0%',
      '  2  /guides/new      900       0            new',
    ]);
  });

  it('prints the top searches and the low-CTR terms with the threshold and why', () => {
    const out = renderTerminal(makeReport([withStreams()]), { color: false, width: 80 });
    expect(section(out, 'Top searches')).toEqual([
      'Top searches, last 7 days to 2026-03-01',
      '  #  query            searches    CTR  vs previous 7',
      '  1  install                50  60.0%        +100.0%',
      `  2  ${NASTY_QUERY}        10   0.0%        +100.0%`,
      '  70 searches in the 7 days, terms not listed included. CTR: the part of a',
      "  term's searches followed by a click, weighted by searches.",
    ]);
    expect(section(out, 'Searches with low CTR')).toEqual([
      'Searches with low CTR (docs gaps), 28 days to 2026-03-01',
      '  query            searches   CTR  zero-click',
      `  ${NASTY_QUERY}        40  0.0%      100.0%`,
      '  Terms searched 20 times or more in 28 loaded days (with fewer, one search',
      '  moves the CTR by 5 points or more) and clicked less than the average term',
      '  (40.0%), lowest CTR first. Zero-click: the part of the searches on days when',
      '  none for the term was clicked.',
    ]);
  });

  it('prints assistant queries per caller with their shares, on the last day and over 7 days', () => {
    const out = renderTerminal(makeReport([withStreams()]), { color: false, width: 80 });
    expect(section(out, 'Assistant queries by caller')).toEqual([
      'Assistant queries by caller',
      '         2026-03-01  share  last 7 days  share  trend, 7 days',
      '  web            60  60.0%          420  60.0%  ▄▄▄▄▄▄▄',
      '  API            30  30.0%          210  30.0%  ▄▄▄▄▄▄▄',
      '  other          10  10.0%           70  10.0%  ▄▄▄▄▄▄▄',
      '  total         100                 700         ▄▄▄▄▄▄▄',
      '  Queries are events: they add up over days.',
    ]);
  });

  it('makes control characters in a query visible and shortens a long query to fit the width', () => {
    const evil = '\x1b[2Jwipe\u202e';
    const long = `how do I ${'configure the thing '.repeat(6)}at the end`;
    const p = {
      ...withStreams(['searches']),
      searches: makeSearches([makeTerm(evil, 30, 0), makeTerm(long, 20, 0.1)]),
    };
    const out = renderTerminal(makeReport([p]), { color: false, width: 60 });
    expect(out).toContain('\\x1b[2Jwipe\\u202e');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    const row = section(out, 'Top searches').find((l) => l.includes('how do I')) ?? '';
    expect(row).toContain('…');
    expect(row).toContain('at the end');
    const mine = [...section(out, 'Top searches'), ...section(out, 'Searches with low CTR')];
    for (const line of mine) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
  });

  it('colours the new sections only when asked, with the same text otherwise', () => {
    const data = makeReport([withStreams()]);
    const plain = renderTerminal(data, { color: false });
    const coloured = renderTerminal(data, { color: true });
    expect(plain).not.toMatch(ANSI);
    expect(coloured.replace(ANSI, '')).toBe(plain);
    expect(section(coloured.replace(ANSI, ''), 'Assistant queries').length).toBeGreaterThan(3);
  });
});

describe('the HTML report of the other streams', () => {
  const doc = (p: ProjectReport) => new JSDOM(renderHtml(makeReport([p]))).window.document;

  it('has the views, searches and assistant parts, each chart drawn for desktop and phone', () => {
    const d = doc(withStreams());
    const streams = [...d.querySelectorAll('[data-stream]')].map((e) => e.getAttribute('data-stream'));
    expect(streams).toEqual(['views', 'searches', 'callers']);
    const tables = [...d.querySelectorAll('[data-table]')].map((t) => t.getAttribute('data-table'));
    expect(tables.slice(5)).toEqual(['views', 'views-pages', 'search-terms', 'search-gaps', 'callers']);
    for (const id of ['views', 'callers']) {
      expect(d.querySelectorAll(`figure[data-chart="${id}"] .plot.wide svg`), id).toHaveLength(1);
      expect(d.querySelectorAll(`figure[data-chart="${id}"] .plot.narrow svg`), id).toHaveLength(1);
    }
    // 7 days of 3 stacked callers.
    const bars = [...d.querySelectorAll('figure[data-chart="callers"] .plot.wide svg rect')].filter(
      (r) => Number(r.getAttribute('height')) > 0,
    );
    expect(bars).toHaveLength(21);
    expect(d.querySelector('footer')?.textContent).toMatch(/Views are content view events/);
  });

  it('shows only the parts of the streams that are loaded, none for visitors alone', () => {
    const alone = renderHtml(makeReport([makeProject()]));
    expect(alone).not.toContain('data-stream');
    expect(alone).not.toMatch(/Content views|Assistant queries|Searches/);
    const d = doc(withStreams(['callers']));
    expect([...d.querySelectorAll('[data-stream]')].map((e) => e.getAttribute('data-stream'))).toEqual([
      'callers',
    ]);
    expect(d.querySelector('figure[data-chart="views"]')).toBeNull();
  });

  it('renders a query like <script>"x"&\'y\' as text in every table, never as markup', () => {
    const html = renderHtml(makeReport([withStreams()]));
    const d = new JSDOM(html).window.document;
    expect(d.querySelectorAll('script')).toHaveLength(0);
    expect(html).not.toContain(NASTY_QUERY);
    expect(html).toContain('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;');
    const cells = (id: string) =>
      [...d.querySelectorAll(`[data-table="${id}"] td.path`)].map((td) => td.textContent);
    expect(cells('search-terms')).toEqual(['install', NASTY_QUERY]);
    expect(cells('search-gaps')).toEqual([NASTY_QUERY]);
  });

  it('folds the page and query tables on phones like the visitors path tables', () => {
    const d = doc(withStreams());
    for (const id of ['views-pages', 'search-terms', 'search-gaps']) {
      expect(d.querySelector(`[data-table="${id}"]`)?.classList.contains('reflow'), id).toBe(true);
    }
  });
});
