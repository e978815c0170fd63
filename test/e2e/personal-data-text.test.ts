import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * Readers' text holding e-mail addresses, in every command that shows readers' text. Week 2026-W09
 * (02-23 to 03-01): the top search is an address in capitals, a new zero-click term on 03-01 holds
 * one with a plus, another a percent-encoded one; an open comment holds a full-width at sign; the
 * assistant leaves a question naming an address unanswered four times a day.
 */
let dir: string;
let cleanup: () => void;
let db: string;
let rules: string;
const clock = { MINTLIFY_ETL_NOW: '2026-03-03T09:00:00Z' };
const LEAKS = [
  'JOHN.DOE',
  'EXAMPLE.COM',
  'jane+tag',
  'x.co',
  'bob%40',
  'corp.io',
  'alice',
  'dave',
  'example.org',
];

function expectMasked(text: string): void {
  expect(text).toContain('[email]');
  for (const leak of LEAKS) expect(text).not.toContain(leak);
}

function ok(r: CliResult, codes: readonly number[] = [0]): string {
  expect(codes, r.stderr).toContain(r.code);
  return r.stdout + r.stderr;
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('mlx-personal-text-'));
  db = join(dir, 'p.duckdb');
  const conn = await openDatabase(db);
  const fx = new AlertsFixture(conn.connection);
  await fx.visitors('docs', '2026-02-02', '2026-03-03', '100');
  await fx.pageDays('docs', '/up', '2026-02-02', '2026-03-03', 10);
  await fx.dayWindows('docs', 'searches', '2026-02-02', '2026-03-03');
  for (const day of ['2026-02-24', '2026-02-25', '2026-02-26']) {
    await fx.search('docs', day, 'JOHN.DOE@EXAMPLE.COM', 30, 0.5);
  }
  await fx.search('docs', '2026-02-26', 'login as bob%40corp.io', 12, 0);
  await fx.search('docs', '2026-03-01', 'jane+tag@x.co', 9, 0);
  await fx.window('docs', 'feedback', '2026-02-01', '2026-03-01');
  await fx.window('docs', 'feedback', '2026-03-01', '2026-04-01', 'loaded', '2026-03-03');
  await fx.feedback('docs', '2026-02-27', '/up', 1, { comment: 'wrong port, mail alice＠example.com' });
  await fx.dayWindows('docs', 'assistant', '2026-02-02', '2026-03-03');
  await fx.turns('docs', '2026-02-02', '2026-03-03', 5, 4, 'why is dave&#64;example.org locked out');
  conn.close();
  rules = join(dir, 'rules.json');
  writeFileSync(
    rules,
    JSON.stringify({
      pipeline: { maxDaysBehind: 100_000 },
      search: { minSearches: 1, minHistoryDays: 1 },
      assistant: { minTurns: 1, increasePoints: 0, minHistoryDays: 1 },
    }),
  );
});

afterAll(() => cleanup());

describe("readers' e-mail addresses in what the commands show", () => {
  it('are [email] in the Markdown digest, the HTML digest, --json and the text sent to the webhook', async () => {
    expectMasked(ok(await runCli(['digest', '--db', db, '--week', '2026-W09'], clock)));
    expectMasked(ok(await runCli(['digest', '--db', db, '--week', '2026-W09', '--json'], clock)));
    const html = ok(await runCli(['digest', '--db', db, '--week', '2026-W09', '--format', 'html'], clock));
    expectMasked(html);
    const hook = await startWebhookReceiver([200]);
    try {
      ok(await runCli(['digest', '--db', db, '--week', '2026-W09', '--webhook', hook.url], clock));
      expectMasked(JSON.stringify(hook.accepted));
    } finally {
      await hook.close();
    }
  });

  it('are [email] in the alerts, their --json and the webhook payload', async () => {
    const args = ['alerts', '--db', db, '--rules', rules, '--day', '2026-03-01'];
    const json = ok(await runCli([...args, '--json'], clock), [6]);
    expect(json).toMatch(/new search term without a click/);
    expect(json).toMatch(/top unanswered/);
    expectMasked(json);
    const hook = await startWebhookReceiver([200]);
    try {
      expectMasked(ok(await runCli([...args, '--resend', '--webhook', hook.url], clock), [6]));
      expectMasked(JSON.stringify(hook.accepted));
    } finally {
      await hook.close();
    }
  });

  it('are [email] in the report: top searches, open comments and unanswered questions, text, HTML and --json', async () => {
    const html = join(dir, 'r.html');
    const text = ok(await runCli(['report', '--db', db, '--html', html], clock));
    expectMasked(text);
    expectMasked(readFileSync(html, 'utf8'));
    expectMasked(ok(await runCli(['report', '--db', db, '--json'], clock)));
  });

  it('are [email] in gaps and its --json', async () => {
    expectMasked(ok(await runCli(['gaps', '--db', db, '--to', '2026-03-02'], clock)));
    expectMasked(ok(await runCli(['gaps', '--db', db, '--to', '2026-03-02', '--json'], clock)));
  });
});
