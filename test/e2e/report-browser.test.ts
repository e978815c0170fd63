import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { decodePng, meanBrightness, type Pixels } from '../helpers/png.js';
import { buildReportFixture, FIXTURE_PROJECT, NASTY_PATH } from '../helpers/report-fixture.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { insertEventsSql } from '../helpers/analytics-events-rows.js';

/** A few events of the fixture's last days, one with a long referrer host, for the event-stream tables. */
async function addEvents(db: string): Promise<void> {
  const d = await openDatabase(db);
  try {
    const host = 'a-rather-long-subdomain-of-a-referrer.docs-portal.some-company-with-a-long-name.example';
    await d.connection.run(
      insertEventsSql([
        {
          id: '1',
          type: 'docs.content.view',
          at: '2026-02-27T10:00:00Z',
          visitor: 'A',
          host,
          project: FIXTURE_PROJECT,
        },
        {
          id: '2',
          type: 'docs.content.md.view',
          at: '2026-02-28T10:00:00Z',
          visitor: 'B',
          cls: 'ai_answers',
          project: FIXTURE_PROJECT,
        },
        {
          id: '3',
          type: 'docs.search.query',
          at: '2026-02-28T11:00:00Z',
          visitor: 'A',
          session: 's',
          project: FIXTURE_PROJECT,
        },
      ]),
    );
  } finally {
    d.close();
  }
}

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  // Shown in the test output next to the skipped test, so nobody mistakes a skip for a pass.
  console.warn(
    `report-browser: SKIPPED because ${CHROMIUM} is absent (Debian/Ubuntu: apt-get install -y chromium)`,
  );
}

const run = promisify(execFile);
const ARTIFACTS = join(packageRoot(), 'test-artifacts');
const SCREENSHOT = join(ARTIFACTS, 'report.png');
const PHONE_SCREENSHOT = join(ARTIFACTS, 'report-420px.png');
const PHONE = 420;
const SMALL_PHONE = 390;

/** Mean brightness of a band of columns of an image, `from` pixels in from one edge. */
function band(p: Pixels, edge: 'left' | 'right', width = 8): number {
  const x0 = edge === 'left' ? 0 : p.width - width;
  const rgb = new Uint8Array(width * p.height * 3);
  for (let y = 0; y < p.height; y++)
    rgb.set(p.rgb.subarray((y * p.width + x0) * 3, (y * p.width + x0 + width) * 3), y * width * 3);
  return meanBrightness({ width, height: p.height, rgb });
}

interface TableBox {
  id: string;
  left: number;
  right: number;
  wrapped: boolean;
  wrapperLeft: number;
  wrapperRight: number;
  scrolls: boolean;
}

const LAUNCH = {
  executablePath: CHROMIUM,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

interface PhoneChart {
  id: string;
  shown: number;
  left: number;
  right: number;
  minFontPx: number;
}

interface PhoneCell {
  table: string;
  text: string;
  left: number;
  right: number;
  width: number;
}

interface ChartStats {
  exists: boolean;
  width: number;
  height: number;
  paths: number;
  rects: number;
  circles: number;
}

describe('the HTML report in a real browser', () => {
  const tmp = tempDir('mintlify-etl-report-');
  afterAll(() => tmp.cleanup());

  it.skipIf(!hasChromium)(
    'renders every chart as visible SVG, with no console error and no network request, and saves a screenshot',
    async () => {
      const db = join(tmp.dir, 'analytics.duckdb');
      const html = join(tmp.dir, 'out', 'report.html');
      await buildReportFixture(db, { skip: [40] });
      const cli = await run(process.execPath, [CLI, 'report', '--db', db, '--html', html], {
        env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      });
      expect(cli.stderr).toContain(`wrote ${html}`);
      expect(cli.stdout).toContain('Top pages, last 7 days');
      expect(readFileSync(html, 'utf8')).not.toMatch(/<script/i);

      const browser = await chromium.launch(LAUNCH);
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        const errors: string[] = [];
        const requests: string[] = [];
        const failed: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
        page.on('request', (r) => requests.push(r.url()));
        page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText ?? ''}`));
        // Anything but the file itself would be a leak of the self-contained promise: refuse it.
        await page.route(/^(?!file:)/, (route) => route.abort());

        const url = pathToFileURL(html).href;
        await page.goto(url, { waitUntil: 'load' });

        const stats = await page.evaluate(
          (ids: string[]) => {
            const out: Record<string, ChartStats> = {};
            for (const id of ids) {
              const svg = document.querySelector(`figure[data-chart="${id}"] svg`);
              if (!(svg instanceof SVGSVGElement)) {
                out[id] = { exists: false, width: 0, height: 0, paths: 0, rects: 0, circles: 0 };
                continue;
              }
              const box = svg.getBoundingClientRect();
              const paths = [...svg.querySelectorAll('path')].filter((p) => {
                const d = p.getAttribute('d') ?? '';
                const b = p.getBBox();
                return d.length > 10 && (b.width > 0 || b.height > 0);
              }).length;
              const rects = [...svg.querySelectorAll('rect')].filter((r) => {
                const b = r.getBBox();
                return b.width > 0 && b.height > 0;
              }).length;
              out[id] = {
                exists: true,
                width: box.width,
                height: box.height,
                paths,
                rects,
                circles: svg.querySelectorAll('circle').length,
              };
            }
            return out;
          },
          ['daily', 'weekly', 'ai-share', 'top-pages'],
        );

        for (const [id, s] of Object.entries(stats)) {
          expect(s.exists, `${id} chart exists`).toBe(true);
          expect(s.width, `${id} chart width`).toBeGreaterThan(600);
          expect(s.height, `${id} chart height`).toBeGreaterThan(150);
        }
        // Daily: areas and lines for human, AI and the 7-day averages.
        expect(stats['daily']?.paths).toBeGreaterThanOrEqual(5);
        // Weekly: 3 bars (total, human, AI) for each of the 5 ISO weeks the 28 days touch.
        expect(stats['weekly']?.rects).toBe(15);
        // Top pages: a total bar and an AI bar for each of the fixture's 8 pages.
        expect(stats['top-pages']?.rects).toBe(16);
        expect(stats['ai-share']?.paths).toBeGreaterThanOrEqual(2);
        expect(stats['ai-share']?.circles).toBe(27);

        expect(await page.locator('script').count()).toBe(0);
        const topTable = page.locator('[data-table="top-pages"] td.path');
        expect(await topTable.allTextContents()).toContain(NASTY_PATH);
        expect(await page.title()).toBe('Mintlify visitors · docs-main');

        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });

        expect(errors).toEqual([]);
        expect(failed).toEqual([]);
        expect(requests).toEqual([url]);
      } finally {
        await browser.close();
      }
      expect(existsSync(SCREENSHOT)).toBe(true);
    },
  );
  it.skipIf(!hasChromium)(
    'is legible on a 420-px phone: chart text at 10 px or more, paths, queries and sparklines inside the screen',
    async () => {
      const db = join(tmp.dir, 'phone.duckdb');
      const html = join(tmp.dir, 'out', 'phone.html');
      // With the other streams loaded, so that their charts and tables are checked on a phone too.
      await buildReportFixture(db, { skip: [40], streams: ['views', 'searches', 'caller_stats'] });
      await run(process.execPath, [CLI, 'report', '--db', db, '--html', html], {
        env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      });
      const browser = await chromium.launch(LAUNCH);
      try {
        const page = await browser.newPage({ viewport: { width: PHONE, height: 900 }, deviceScaleFactor: 1 });
        await page.route(/^(?!file:)/, (route) => route.abort());
        await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });

        const charts = await page.evaluate(
          (ids: string[]) =>
            ids.map((id) => {
              // The chart the reader sees: SVGs hidden by CSS have an empty box.
              const shown = [...document.querySelectorAll(`figure[data-chart="${id}"] svg`)].filter(
                (svg): svg is SVGSVGElement =>
                  svg instanceof SVGSVGElement && svg.getBoundingClientRect().width > 0,
              );
              const svg = shown[0];
              if (!svg) return { id, shown: 0, left: 0, right: 0, minFontPx: 0 };
              const box = svg.getBoundingClientRect();
              // Text is sized in the SVG's own units: what reaches the screen is that times the scale.
              const scale = box.width / (svg.viewBox.baseVal.width || box.width);
              const sizes = [...svg.querySelectorAll('text')].map(
                (t) => parseFloat(getComputedStyle(t).fontSize) * scale,
              );
              return {
                id,
                shown: shown.length,
                left: box.left,
                right: box.right,
                minFontPx: Math.min(...sizes),
              };
            }),
          ['daily', 'weekly', 'ai-share', 'top-pages', 'views', 'callers'],
        );
        for (const c of charts as PhoneChart[]) {
          expect(c.shown, `${c.id}: one chart shown`).toBe(1);
          expect(c.minFontPx, `${c.id}: smallest text on screen`).toBeGreaterThanOrEqual(10);
          expect(c.left, `${c.id}: left edge`).toBeGreaterThanOrEqual(0);
          expect(c.right, `${c.id}: right edge`).toBeLessThanOrEqual(PHONE);
        }

        const cells = (await page.evaluate(() => {
          const pick = (table: string, selector: string) =>
            [...document.querySelectorAll(`[data-table="${table}"] ${selector}`)].map((td) => {
              const b = td.getBoundingClientRect();
              return { table, text: td.textContent ?? '', left: b.left, right: b.right, width: b.width };
            });
          return [
            ...pick('top-pages', 'td.path'),
            ...pick('movers', 'td.path'),
            ...pick('views-pages', 'td.path'),
            ...pick('search-terms', 'td.path'),
            ...pick('search-gaps', 'td.path'),
            // The last cell of each site row is its sparkline.
            ...pick('site', 'tbody td:last-child'),
          ];
        })) as PhoneCell[];
        for (const table of ['movers', 'views-pages', 'search-terms', 'search-gaps']) {
          expect(cells.filter((c) => c.table === table).length, table).toBeGreaterThan(0);
        }
        for (const c of cells) {
          expect(c.left, `${c.table} ${c.text}: left edge`).toBeGreaterThanOrEqual(0);
          expect(c.right, `${c.table} ${c.text}: right edge`).toBeLessThanOrEqual(PHONE);
          expect(c.width, `${c.table} ${c.text}: width`).toBeGreaterThanOrEqual(120);
        }
        // The weekly table has no path: it loses its start-date column rather than its change.
        const weekly = await page.evaluate(() =>
          [...document.querySelectorAll('[data-table="weekly"] tbody td:last-child')].map(
            (td) => td.getBoundingClientRect().right,
          ),
        );
        expect(weekly.length).toBeGreaterThan(0);
        for (const right of weekly) expect(right, 'weekly change column').toBeLessThanOrEqual(PHONE);
        const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(pageWidth, 'the page itself does not scroll sideways').toBeLessThanOrEqual(PHONE);

        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: PHONE_SCREENSHOT, fullPage: true });
      } finally {
        await browser.close();
      }
      expect(existsSync(PHONE_SCREENSHOT)).toBe(true);
    },
  );

  it.skipIf(!hasChromium)(
    'on a 390-px phone keeps every table inside the screen, the wide ones scrolling in a box that shows a shadow where more columns are',
    async () => {
      const db = join(tmp.dir, 'small-phone.duckdb');
      const html = join(tmp.dir, 'out', 'small-phone.html');
      await buildReportFixture(db, {
        partialLast: true,
        feedback: true,
        assistant: true,
        periods: true,
        streams: ['views', 'searches', 'caller_stats'],
      });
      await addEvents(db);
      await run(process.execPath, [CLI, 'report', '--db', db, '--html', html], {
        env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      });
      const browser = await chromium.launch(LAUNCH);
      try {
        const page = await browser.newPage({
          viewport: { width: SMALL_PHONE, height: 900 },
          deviceScaleFactor: 1,
        });
        await page.route(/^(?!file:)/, (route) => route.abort());
        await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
        const boxes = (await page.evaluate(() =>
          [...document.querySelectorAll('[data-table] table')].map((table) => {
            const b = table.getBoundingClientRect();
            const wrapper = table.parentElement;
            const w = wrapper?.getBoundingClientRect();
            const overflow = wrapper ? getComputedStyle(wrapper).overflowX : 'visible';
            return {
              id: table.closest('[data-table]')?.getAttribute('data-table') ?? '?',
              left: b.left,
              right: b.right,
              wrapped: overflow === 'auto' || overflow === 'scroll',
              wrapperLeft: w?.left ?? 0,
              wrapperRight: w?.right ?? 0,
              scrolls: wrapper !== null && wrapper.scrollWidth > wrapper.clientWidth + 1,
            };
          }),
        )) as TableBox[];
        expect(boxes.length).toBeGreaterThan(10);
        for (const id of ['event-visitors', 'event-traffic', 'event-referrers', 'event-funnels'])
          expect(boxes.map((t) => t.id)).toContain(id);
        for (const t of boxes) {
          const inside = t.left >= 0 && t.right <= SMALL_PHONE;
          const scrollsInside = t.wrapped && t.wrapperLeft >= 0 && t.wrapperRight <= SMALL_PHONE;
          expect(inside || scrollsInside, `${t.id}: inside the screen or in a scroll box that is`).toBe(true);
        }
        // The week and month uniques are read at a glance: the whole table, no column behind a scroll.
        expect(boxes.find((t) => t.id === 'uniques')?.scrolls, 'uniques: fits a 390-px phone').toBe(false);
        // The week and month uniques are read at a glance: the whole table, no column behind a scroll.
        expect(boxes.find((t) => t.id === 'uniques')?.scrolls, 'uniques: fits a 390-px phone').toBe(false);
        const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(pageWidth, 'the page itself does not scroll sideways').toBeLessThanOrEqual(SMALL_PHONE);

        // The cue is measured in pixels with the text made invisible, so that only the box's own
        // painting counts: darker at the edge that hides columns, and only there. On the smallest
        // phones (320 px) some tables are wider than the screen (by more than the 28-px covers).
        await page.setViewportSize({ width: 320, height: 900 });
        const scrolling = await page.evaluate(() =>
          [...document.querySelectorAll('[data-table] table')]
            .filter(
              (t) =>
                t.parentElement !== null && t.parentElement.scrollWidth > t.parentElement.clientWidth + 40,
            )
            .map((t) => t.closest('[data-table]')?.getAttribute('data-table') ?? '?'),
        );
        expect(scrolling.length, 'some table is wider than a 320-px phone').toBeGreaterThan(0);
        await page.addStyleTag({ content: '* { color: transparent !important; }' });
        for (const id of scrolling) {
          const box = page.locator(`[data-table="${id}"] table`).locator('..');
          const atStart = decodePng(await box.screenshot());
          expect(band(atStart, 'right'), `${id}: a shadow at the right edge`).toBeLessThan(
            band(atStart, 'left') - 6,
          );
          await box.evaluate((el) => (el.scrollLeft = el.scrollWidth));
          const atEnd = decodePng(await box.screenshot());
          expect(band(atEnd, 'left'), `${id}: scrolled to the end, the shadow is at the left`).toBeLessThan(
            band(atEnd, 'right') - 6,
          );
        }
        const still = boxes.find((t) => !t.scrolls && t.wrapped);
        if (still) {
          const plain = decodePng(
            await page.locator(`[data-table="${still.id}"] table`).locator('..').screenshot(),
          );
          expect(Math.abs(band(plain, 'right') - band(plain, 'left')), `${still.id}: no shadow`).toBeLessThan(
            3,
          );
        }
      } finally {
        await browser.close();
      }
    },
  );
});
