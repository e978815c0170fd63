import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/model.js';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { buildReportFixture, OTHER_CONTACT, SECRET_CONTACT } from '../helpers/report-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `report-events-cli: browser checks SKIPPED because ${CHROMIUM} is absent (Debian/Ubuntu: apt-get install -y chromium)`,
  );
}
const LAUNCH = {
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
};
const PHONE = 420;

describe('mintlify-etl report with feedback, assistant and true uniques (the built CLI)', () => {
  const tmp = tempDir('mintlify-etl-report-events-cli-');
  const db = join(tmp.dir, 'analytics.duckdb');
  beforeAll(async () => {
    await buildReportFixture(db, { feedback: true, assistant: true, periods: true });
  });
  afterAll(() => tmp.cleanup());

  it('keeps contacts out of the text, the HTML and --json unless --include-personal-data', async () => {
    const html = join(tmp.dir, 'out', 'report.html');
    const text = await runCli(['report', '--db', db, '--html', html], { NO_COLOR: '1' });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Open feedback, oldest first');
    expect(text.stdout).toContain('Unique visitors this week and this month');
    const json = await runCli(['report', '--db', db, '--json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as ReportData;
    expect(data.projects[0]?.feedback?.personalData).toBe(false);
    for (const out of [text.stdout, text.stderr, readFileSync(html, 'utf8'), json.stdout, json.stderr]) {
      expect(out).not.toContain(SECRET_CONTACT);
      expect(out).not.toContain(OTHER_CONTACT);
    }

    const privateHtml = join(tmp.dir, 'out', 'private.html');
    const withText = await runCli(['report', '--db', db, '--include-personal-data', '--html', privateHtml], {
      NO_COLOR: '1',
      COLUMNS: '200',
    });
    expect(withText.code).toBe(0);
    expect(withText.stdout).toContain(SECRET_CONTACT);
    expect(readFileSync(privateHtml, 'utf8')).toContain(SECRET_CONTACT);
    const withJson = await runCli(['report', '--db', db, '--json', '--include-personal-data']);
    const open = (JSON.parse(withJson.stdout) as ReportData).projects[0]?.feedback?.open ?? [];
    expect(open[0]?.contact).toBe(SECRET_CONTACT);
  });

  it('documents --include-personal-data in report --help', async () => {
    const r = await runCli(['report', '--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--include-personal-data');
    expect(help).toContain('Feedback contacts (email addresses) are personal data');
  });

  it.skipIf(!hasChromium)(
    'draws the feedback and assistant charts in a real browser, legible and inside a 420-px phone screen',
    async () => {
      const html = join(tmp.dir, 'out', 'browser.html');
      const r = await runCli(['report', '--db', db, '--html', html], { NO_COLOR: '1' });
      expect(r.code).toBe(0);
      const browser = await chromium.launch(LAUNCH);
      try {
        for (const width of [1200, PHONE]) {
          const page = await browser.newPage({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
          const errors: string[] = [];
          page.on('console', (m) => {
            if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
          });
          page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
          await page.route(/^(?!file:)/, (route) => route.abort());
          await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
          const charts = await page.evaluate(
            (ids: string[]) =>
              ids.map((id) => {
                const shown = [...document.querySelectorAll(`figure[data-chart="${id}"] svg`)].filter(
                  (svg): svg is SVGSVGElement =>
                    svg instanceof SVGSVGElement && svg.getBoundingClientRect().width > 0,
                );
                const svg = shown[0];
                if (!svg) return { id, shown: 0, left: 0, right: 0, minFontPx: 0, marks: 0 };
                const box = svg.getBoundingClientRect();
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
                  marks: svg.querySelectorAll('circle').length,
                };
              }),
            ['feedback', 'assistant'],
          );
          for (const c of charts) {
            expect(c.shown, `${width}px ${c.id}: one chart shown`).toBe(1);
            expect(c.minFontPx, `${width}px ${c.id}: smallest text`).toBeGreaterThanOrEqual(10);
            expect(c.left, `${width}px ${c.id}: left edge`).toBeGreaterThanOrEqual(0);
            expect(c.right, `${width}px ${c.id}: right edge`).toBeLessThanOrEqual(width);
          }
          // 5 weeks of thumbs; 28 days of two shares.
          expect(charts.map((c) => c.marks)).toEqual([5, 56]);
          const cells = await page.evaluate(() =>
            [...document.querySelectorAll('td.free')].map((td) => td.getBoundingClientRect().right),
          );
          // 8 comments and questions, and the subjects of 5 content gaps.
          expect(cells.length).toBe(13);
          for (const right of cells) expect(right).toBeLessThanOrEqual(width);
          const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(pageWidth, 'the page does not scroll sideways').toBeLessThanOrEqual(width);
          expect(await page.locator('script').count()).toBe(0);
          expect(errors).toEqual([]);
          const dir = join(packageRoot(), 'test-artifacts');
          mkdirSync(dir, { recursive: true });
          await page.screenshot({ path: join(dir, `report-events-${width}px.png`), fullPage: true });
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
  );
});
