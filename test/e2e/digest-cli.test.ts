import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { packageRoot } from '../../src/paths.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`digest-cli: the Chromium test is SKIPPED because ${CHROMIUM} is absent`);
const ARTIFACTS = join(packageRoot(), 'test-artifacts');
const EMAIL_WIDTH = 600;

/*
 * Week 2026-W09 is Monday 2026-02-23 to Sunday 03-01; W08 the week before. Visitors 100 a day
 * then 150 (+50%); /up grows from 10 to 40 a day, /down falls from 30 to 5; "oauth" is searched
 * 6 times on 02-25 without a click, "setup" 20 times with clicks.
 */
let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('mlx-digest-'));
  db = join(dir, 'd.duckdb');
  const conn = await openDatabase(db);
  const fx = new AlertsFixture(conn.connection);
  await fx.visitors('docs', '2026-02-16', '2026-02-23', '100');
  await fx.visitors('docs', '2026-02-23', '2026-03-02', '150');
  await fx.pageDays('docs', '/up', '2026-02-16', '2026-02-23', 10);
  await fx.pageDays('docs', '/up', '2026-02-23', '2026-03-02', 40);
  await fx.pageDays('docs', '/down', '2026-02-16', '2026-02-23', 30);
  await fx.pageDays('docs', '/down', '2026-02-23', '2026-03-02', 5);
  await fx.pageDays(
    'docs',
    '/a-very-long-path/that/keeps/going/and/going/without-any-break-at-all-in-it',
    '2026-02-23',
    '2026-03-02',
    3,
  );
  await fx.dayWindows('docs', 'searches', '2026-02-16', '2026-03-02');
  await fx.search('docs', '2026-02-25', 'oauth', 6, 0);
  await fx.search('docs', '2026-02-25', 'setup <script>', 20, 0.5);
  conn.close();
});

afterAll(() => cleanup());

describe('mintlify-etl digest as a process', () => {
  it('writes the week at a glance in Markdown: visitors with the change, movers, searches and new zero-click ones', async () => {
    const r = await runCli(['digest', '--db', db]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('*Docs week 2026-W09 · docs · 2026-02-23 to 2026-03-01*');
    expect(r.stdout).toContain('• Human visitor-days: 1,050 (+50% vs the week before)');
    expect(r.stdout).toContain('• Human views: not loaded');
    expect(r.stdout).toMatch(/\*Pages up\*\n• \/up: 280 \(\+210\)\n/);
    expect(r.stdout).toMatch(/\*Pages down\*\n• \/down: 35 \(-175\)\n/);
    expect(r.stdout).toMatch(/\*New searches without a click\*\n• "oauth": 6 searches, none clicked\n/);
    expect(r.stdout).toContain('• feedback is not synced');
  });

  it('refuses a week that is not an ISO week with exit 2', async () => {
    const r = await runCli(['digest', '--db', db, '--week', '2026-47']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mintlify-etl: --week "2026-47" is not an ISO week: use YYYY-Www, e.g. 2026-W47\n');
  });

  it('sends the Markdown digest to a webhook as its text', async () => {
    const hook = await startWebhookReceiver([200]);
    try {
      const r = await runCli(['digest', '--db', db, '--week', '2026-W09', '--webhook', hook.url]);
      expect(r.code).toBe(0);
      expect((hook.accepted[0] as { text: string }).text).toContain('*Docs week 2026-W09');
      expect(r.stdout + r.stderr).not.toContain(hook.token);
    } finally {
      await hook.close();
    }
  });

  it.skipIf(!hasChromium)(
    'writes HTML a mail client shows: inline styles, no script or external resource, 600 px wide in Chromium',
    async () => {
      const html = join(dir, 'digest.html');
      const r = await runCli(['digest', '--db', db, '--week', '2026-W09', '--format', 'html', '--out', html]);
      expect(r.code).toBe(0);
      const text = readFileSync(html, 'utf8');
      expect(text).not.toMatch(/<script|<style|<link|<img|src=|url\(/i);
      expect(text).toContain('setup &lt;script&gt;');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
      try {
        const page = await browser.newPage({
          viewport: { width: EMAIL_WIDTH, height: 900 },
          deviceScaleFactor: 1,
        });
        const requests: string[] = [];
        page.on('request', (q) => {
          if (!q.url().startsWith('file:')) requests.push(q.url());
        });
        await page.route(/^(?!file:)/, (route) => route.abort());
        await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
        const box = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          headings: [...document.querySelectorAll('h2')].map((h) => h.textContent),
        }));
        expect(requests).toEqual([]);
        expect(box.scrollWidth).toBeLessThanOrEqual(EMAIL_WIDTH);
        expect(box.headings).toContain('New searches without a click');
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, 'digest-600px.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
  );
});

// A refusal that hangs (a FIFO nobody reads) is the bug; this bounds the wait, it is not a timing claim.
const HANG_GUARD_MS = 90_000;

/** Exit 2 with one line on stderr matching `pattern`, nothing on stdout. */
function expectRefused(r: CliResult, pattern: RegExp): void {
  expect(r.stderr).toMatch(/^mintlify-etl: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
}

function freshDir(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

describe('digest --out never replaces a file it did not write', () => {
  it('refuses the database itself, and a symbolic link to it, with exit 2, leaving every byte of it', async () => {
    const d = freshDir('out-db');
    const copy = join(d, 'x.duckdb');
    copyFileSync(db, copy);
    const before = readFileSync(copy);
    const link = join(d, 'digest.md');
    symlinkSync(copy, link);
    for (const out of [copy, link]) {
      for (const force of [[], ['--force']]) {
        expectRefused(
          await runCli(['digest', '--db', copy, '--week', '2026-W09', '--out', out, ...force]),
          /--out .* is the database \(.*x\.duckdb\): give the digest its own file name/,
        );
      }
    }
    expect(readFileSync(copy).equals(before)).toBe(true);
    expect(readdirSync(d).sort()).toEqual(['digest.md', 'x.duckdb']);
  });

  it('refuses an existing file it did not write with exit 2 and leaves it; --force replaces it and says "wrote"', async () => {
    const d = freshDir('out-foreign');
    const notes = join(d, 'notes.md');
    writeFileSync(notes, 'my own notes\n');
    expectRefused(
      await runCli(['digest', '--db', db, '--week', '2026-W09', '--out', notes]),
      /--out .*notes\.md exists and was not written by mintlify-etl; it was left untouched: .*--force/,
    );
    expect(readFileSync(notes, 'utf8')).toBe('my own notes\n');
    const forced = await runCli(['digest', '--db', db, '--week', '2026-W09', '--out', notes, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toBe(`wrote ${notes}\n`);
    expect(readFileSync(notes, 'utf8')).toContain('*Docs week 2026-W09');
    expect(readdirSync(d)).toEqual(['notes.md']);
  });

  it('replaces its own earlier digest, Markdown or HTML, without --force, and leaves no temporary file', async () => {
    const d = freshDir('out-own');
    for (const [name, format] of [
      ['digest.md', 'markdown'],
      ['digest.html', 'html'],
    ] as const) {
      const out = join(d, name);
      for (let i = 0; i < 2; i++) {
        const r = await runCli([
          'digest',
          '--db',
          db,
          '--week',
          '2026-W09',
          '--format',
          format,
          '--out',
          out,
        ]);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe(`wrote ${out}\n`);
      }
    }
    expect(readdirSync(d).sort()).toEqual(['digest.html', 'digest.md']);
    expect(readFileSync(join(d, 'digest.md'), 'utf8')).toMatch(
      /^<!-- generator: mintlify-etl digest -->\n\*Docs week/,
    );
  });

  it(
    'never writes to a FIFO, a device or a folder, even with --force',
    async () => {
      const d = freshDir('out-special');
      const fifo = join(d, 'pipe.md');
      execFileSync('mkfifo', [fifo]);
      const cases: [string, RegExp][] = [
        [fifo, /--out .*pipe\.md is a FIFO, not a regular file/],
        ['/dev/null', /--out \/dev\/null is a device, not a regular file/],
        [d, /--out .*out-special is a folder: give a file name/],
      ];
      const runs = cases.flatMap(([out, pattern]) =>
        [[], ['--force']].map(async (force) => {
          expectRefused(
            await runCli(['digest', '--db', db, '--week', '2026-W09', '--out', out, ...force]),
            pattern,
          );
        }),
      );
      await Promise.all(runs);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    },
    HANG_GUARD_MS,
  );
});
