import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderHtml } from '../../src/report/html.js';
import { makePage, makeProject, makeReport } from '../helpers/report-model.js';

const NASTY = `/docs/<script>"x"&'y'`;
const UNICODE = '/docs/日本語/ページ-✓-é';
const URL_IN_PATH = '/redirect?to=https://example.com/x';

const pages = [
  makePage(1, NASTY, 900, 500),
  makePage(2, UNICODE, 400, 450),
  makePage(3, URL_IN_PATH, 100, 0),
  makePage(4, '/introduction', 80, 80),
];
const html = renderHtml(makeReport([makeProject({ projectId: 'docs-<main>', pages })]));
const dom = new JSDOM(html);
const doc = dom.window.document;

/** The page with every text node emptied: what is left is markup, attributes and CSS. */
function markupOnly(): string {
  const copy = new JSDOM(html).window.document;
  const walker = copy.createTreeWalker(copy.documentElement, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement?.tagName.toLowerCase() !== 'style') n.textContent = '';
  }
  return copy.documentElement.outerHTML;
}

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(NASTY)).toBe('/docs/&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;');
    expect(escapeHtml('a\u0000b')).toBe('a\uFFFDb');
    expect(escapeHtml(UNICODE)).toBe(UNICODE);
  });
});

describe('the HTML report', () => {
  it('escapes a path with <, quotes and & everywhere it appears, so it reads back exactly', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain(`"x"&'y'`);
    expect(doc.querySelectorAll('script')).toHaveLength(0);
    const cells = [...doc.querySelectorAll('[data-table="top-pages"] td.path')].map((td) => td.textContent);
    expect(cells).toEqual([NASTY, UNICODE, URL_IN_PATH, '/introduction']);
    const movers = [...doc.querySelectorAll('[data-table="movers"] td.path')].map((td) => td.textContent);
    expect(movers).toContain(NASTY);
    // The chart's labels and tooltips carry the path too, as text.
    const chartText = doc.querySelector('figure[data-chart="top-pages"] svg')?.textContent ?? '';
    expect(chartText).toContain(NASTY);
    expect(doc.querySelector('h2 code')?.textContent).toBe('docs-<main>');
    expect(doc.title).toBe('Mintlify visitors · docs-<main>');
  });

  it('keeps unicode paths as they are, in a page declared UTF-8', () => {
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain(UNICODE);
  });

  it('is self-contained: no script, stylesheet, image, font or frame from anywhere, no URL outside text', () => {
    for (const tag of ['script', 'link', 'img', 'iframe', 'object', 'embed', 'image', 'use', 'base']) {
      expect(doc.getElementsByTagName(tag), tag).toHaveLength(0);
    }
    for (const el of doc.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        expect(attr.value, `${el.tagName} ${attr.name}`).not.toMatch(/https?:|\/\/|url\(/i);
        expect(attr.name, el.tagName).not.toMatch(/^(src|href|xlink:href|srcset|action|formaction)$/i);
      }
    }
    for (const style of doc.querySelectorAll('style')) {
      expect(style.textContent).not.toMatch(/url\(|@import|@font-face/i);
    }
    const markup = markupOnly();
    expect(markup).not.toContain('http://');
    expect(markup).not.toContain('https://');
    // The one URL in the data is only ever text.
    expect(html).toContain('https://example.com/x');
  });

  it('draws the four charts as inline SVG with real shapes', () => {
    const figure = (id: string) => doc.querySelector(`figure[data-chart="${id}"] svg`);
    for (const id of ['daily', 'weekly', 'ai-share', 'top-pages']) expect(figure(id), id).not.toBeNull();
    const drawnPaths = (id: string) =>
      [...(figure(id)?.querySelectorAll('path') ?? [])].filter((p) =>
        /^M[\d.-]+,[\d.-]+L/.test(p.getAttribute('d') ?? ''),
      ).length;
    const rects = (id: string) =>
      [...(figure(id)?.querySelectorAll('rect') ?? [])].filter(
        (r) => Number(r.getAttribute('width')) > 0 && Number(r.getAttribute('height')) > 0,
      ).length;
    expect(drawnPaths('daily')).toBeGreaterThanOrEqual(5);
    expect(drawnPaths('ai-share')).toBeGreaterThanOrEqual(2);
    expect(rects('weekly')).toBe(4 * 3);
    expect(rects('top-pages')).toBe(pages.length * 2);
  });

  it('has the same tables as the terminal report, numbers included', () => {
    const tables = [...doc.querySelectorAll('[data-table]')].map((t) => t.getAttribute('data-table'));
    expect(tables).toEqual(['site', 'period', 'weekly', 'top-pages', 'movers']);
    const siteTotal = [...doc.querySelectorAll('[data-table="site"] tbody tr:first-child td')].map(
      (td) => td.textContent,
    );
    expect(siteTotal.slice(0, 3)).toEqual(['total', '1,270', '+12.5%']);
    expect(siteTotal[5]).toMatch(/^▁[▁▂▃▄▅▆▇█]{26}█$/);
    expect(doc.querySelector('[data-table="period"] h3')?.textContent).toBe(
      'Last 7 days vs the 7 before, in visitor-days',
    );
  });

  it('says "visitor-days" for sums over days and explains the word', () => {
    expect(doc.querySelector('footer')?.textContent).toMatch(
      /Visitor-days are sums of daily unique visitors/,
    );
    expect(html).not.toMatch(/weekly visitors|visitors per week/i);
  });

  it('gives a friendly page for an empty database', () => {
    const empty = renderHtml(makeReport([]));
    expect(empty).toContain('No data loaded yet');
    expect(empty).not.toContain('<svg');
  });
});
