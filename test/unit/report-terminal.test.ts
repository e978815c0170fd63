import { describe, expect, it } from 'vitest';
import { formatChange, formatCount, formatShare } from '../../src/report/format.js';
import { renderTerminal, shouldColor, sparkline } from '../../src/report/terminal.js';
import { displayWidth, inert, truncateMiddle } from '../../src/report/text.js';
import { makePage, makeProject, makeReport } from '../helpers/report-model.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

function section(out: string, title: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l === '');
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('sparkline', () => {
  it('maps the minimum to ▁ and the maximum to █, linearly in between', () => {
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([10, 0, 5])).toBe('█▁▅');
  });

  it('leaves a space for a missing day so that gaps stay visible', () => {
    expect(sparkline([1, null, 8])).toBe('▁ █');
    expect(sparkline([null, null])).toBe('  ');
    expect(sparkline([1, Number.NaN, 8])).toBe('▁ █');
  });

  it('draws a flat series mid-height, and an all-zero one on the floor', () => {
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([])).toBe('');
  });

  it('averages a long series down to the width it is given', () => {
    const values = Array.from({ length: 90 }, (_, i) => i);
    const line = sparkline(values, 30);
    expect([...line]).toHaveLength(30);
    expect(line.startsWith('▁')).toBe(true);
    expect(line.endsWith('█')).toBe(true);
    // Pairs averaged: [0,0,8,8] -> 0, 8
    expect(sparkline([0, 0, 8, 8], 2)).toBe('▁█');
  });
});

describe('colour', () => {
  it('is on for a TTY only, and off whenever NO_COLOR is set to something', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({}, {})).toBe(false);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(shouldColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('adds ANSI escapes only when asked, and the text is otherwise identical', () => {
    const data = makeReport();
    const plain = renderTerminal(data, { color: false });
    const coloured = renderTerminal(data, { color: true });
    expect(plain).not.toMatch(ANSI);
    expect(coloured).toMatch(ANSI);
    expect(coloured.replace(ANSI, '')).toBe(plain);
  });

  it('colours a rise green and a fall red', () => {
    const out = renderTerminal(makeReport(), { color: true });
    expect(out).toContain(`\x1b[32m${formatChange(0.125).padStart(14)}\x1b[39m`);
    expect(out).toContain('\x1b[31m');
  });
});

describe('the terminal report', () => {
  it('shows the last day with its human/AI split, week-over-week change, 7-day average and a sparkline', () => {
    const p = makeProject();
    const out = renderTerminal(makeReport([p]), { color: false });
    const site = section(out, 'Unique visitors per day');
    const total = site.find((l) => l.trimStart().startsWith('total')) ?? '';
    expect(total).toContain(formatCount(p.latest.total));
    expect(total).toContain('+12.5%');
    expect(total).toContain(formatCount(p.latest.total7dAvg));
    // 28 rising days: the sparkline climbs from the floor to the top.
    expect(total).toMatch(/▁[▁▂▃▄▅▆▇█]{26}█$/);
    const human = site.find((l) => l.trimStart().startsWith('human')) ?? '';
    expect(human).toContain(formatCount(p.latest.human));
    expect(human).toContain('+10.0%');
    const ai = site.find((l) => l.trimStart().startsWith('AI ')) ?? '';
    expect(ai).toContain('-5.0%');
    const share = site.find((l) => l.trimStart().startsWith('AI share')) ?? '';
    expect(share).toContain(formatShare(p.latest.aiShare));
  });

  it('names every sum over days visitor-days, never visitors', () => {
    const out = renderTerminal(makeReport(), { color: false });
    expect(section(out, 'Last 7 days vs the 7 before, in visitor-days').length).toBeGreaterThan(3);
    expect(out).toContain('Weekly (ISO weeks, Monday to Sunday), in visitor-days');
    expect(out).toContain('Top pages, last 7 days to 2026-03-01, in visitor-days');
    expect(out).toContain('Biggest movers, last 7 days vs the 7 before, in visitor-days');
    expect(out).not.toMatch(/weekly visitors|visitors per week|visitors, last 7/i);
  });

  it('aligns the columns of the top pages table whatever the path length and script', () => {
    const pages = [
      makePage(1, '/a', 123456, 100000),
      makePage(2, '/docs/日本語/ページ', 9, 10),
      makePage(3, '/a/much/longer/path/to/a/page', 45, 40),
    ];
    const out = renderTerminal(makeReport([makeProject({ pages })]), { color: false });
    const rows = section(out, 'Top pages').slice(1);
    expect(rows).toHaveLength(3);
    // The right edge of the "vs previous 7" column is the end of each line: all equal.
    const ends = rows.map((l) => displayWidth(l));
    expect(new Set(ends).size).toBe(1);
    // And the total column ends at the same column on every row.
    const totalEnd = rows.map((l, i) => {
      const t = formatCount(pages[i]?.totalVisitorDays7d);
      return displayWidth(l.slice(0, l.indexOf(` ${t} `) + t.length + 1));
    });
    expect(new Set(totalEnd).size).toBe(1);
  });

  it('shortens long paths in the middle so that no line is wider than the terminal', () => {
    const long = `/api-reference/${'very-long-segment/'.repeat(8)}final-page`;
    const out = renderTerminal(makeReport([makeProject({ pages: [makePage(1, long, 10, 5)] })]), {
      color: false,
      width: 80,
    });
    const row = section(out, 'Top pages')[1] ?? '';
    expect(row).toContain('/api-reference/');
    expect(row).toContain('final-page');
    expect(row).toContain('…');
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  it('makes control characters in a path visible instead of sending them to the terminal', () => {
    const evil = '/evil\x1b[2J\x07\u202eeman';
    const out = renderTerminal(makeReport([makeProject({ pages: [makePage(1, evil, 10, 5)] })]), {
      color: false,
    });
    expect(out).toContain('/evil\\x1b[2J\\x07\\u202eeman');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
  });

  it('leaves a gap in the sparkline for a day that is not loaded and says how many are missing', () => {
    const p = makeProject({ days: 7, to: '2026-03-01', missing: ['2026-02-26'] });
    const out = renderTerminal(makeReport([p]), { color: false });
    const total =
      section(out, 'Unique visitors per day').find((l) => l.trimStart().startsWith('total')) ?? '';
    expect(total).toMatch(/▁▂▃ ▆▇█$/);
    expect(out).toContain('1 of the 7 days is not loaded');
  });

  it('says that a partial day was left out and on which complete day the report ends', () => {
    const base = makeProject();
    const out = renderTerminal(
      // As after sync --include-today: the database holds a partial 03-02, the window ends on 03-01.
      makeReport([{ ...base, coverage: { ...base.coverage, lastDay: '2026-03-02', partialDays: 1 } }]),
      { color: false },
    );
    expect(out).toContain('2026-02-02 to 2026-03-01, 28 days');
    // The note wraps to the width: compare its words.
    expect(out.replace(/\s+/g, ' ')).toContain(
      '1 day was still in progress when loaded (sync --include-today) and is left out: the report ends on 2026-03-01, the last complete day (the database holds days up to 2026-03-02).',
    );
    expect(out.replace(/\s+/g, ' ')).not.toContain('ends on 2026-03-02');
  });

  it('marks new pages as new and lists risers before fallers among the movers', () => {
    const out = renderTerminal(makeReport(), { color: false });
    const movers = section(out, 'Biggest movers');
    expect(movers[1]).toMatch(/^\s+↑\s+\+1,000\s+\+25\.0%\s+4,000\s+5,000\s+\/introduction$/);
    expect(movers[2]).toMatch(/↑\s+\+800\s+new\s+0\s+800\s+\/guides\/new-page$/);
    expect(movers[3]).toMatch(/↓\s+-100\s+-3\.2%\s+3,100\s+3,000\s+\/quickstart$/);
  });

  it('shows the 7-day average once when the report itself covers 7 days', () => {
    const out = renderTerminal(makeReport([makeProject({ days: 7 })]), { color: false });
    const head = section(out, 'Unique visitors per day')[0] ?? '';
    expect(head.match(/7-day avg/g)).toHaveLength(1);
  });

  it('says "1 day", not "1 days", for a one-day report', () => {
    const out = renderTerminal(makeReport([makeProject({ days: 1 })]), { color: false });
    expect(out).toContain('2026-03-01 to 2026-03-01, 1 day ');
    expect(out).toContain('trend, 1 day');
    expect(out).not.toMatch(/\b1 days\b/);
  });

  it('prints a friendly message for an empty database', () => {
    expect(renderTerminal(makeReport([]), { color: false })).toBe(
      'No data loaded yet: run `mintlify-etl sync` first, then `mintlify-etl report`.\n',
    );
  });

  it('renders the same text for the same data', () => {
    const data = makeReport([makeProject(), makeProject({ projectId: 'other' })]);
    expect(renderTerminal(data, { color: false })).toBe(renderTerminal(data, { color: false }));
    expect(renderTerminal(data, { color: false })).toContain('project other');
  });
});

describe('terminal text helpers', () => {
  it('measures wide characters as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👍')).toBe(2);
  });

  it('cuts the middle out of a long text and keeps both ends', () => {
    expect(truncateMiddle('/abcdefghij/klmnop', 9)).toBe('/abc…mnop');
    expect(displayWidth(truncateMiddle('/日本語/日本語/日本語', 9))).toBeLessThanOrEqual(9);
    expect(truncateMiddle('/short', 10)).toBe('/short');
  });

  it('escapes C0, C1 and bidi controls', () => {
    expect(inert('a\tb\nc\x9bd\u2066')).toBe('a\\x09b\\x0ac\\x9bd\\u2066');
  });
});
