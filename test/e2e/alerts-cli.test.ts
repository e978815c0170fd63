import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { readRows } from '../helpers/db.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * A project with eight flat weeks of visitors and a week of searches; on 2026-03-02 "oauth" is
 * searched 8 times without a click: one search alert. "behind" would fire against today's clock,
 * so the rules file used here sets it out of reach.
 */
let dir: string;
let cleanup: () => void;
let rules: string;
let n = 0;

// A refusal that hangs (a FIFO nobody writes) is the bug; this bounds the wait, it is not a timing claim.
const HANG_GUARD_MS = 90_000;

async function database(): Promise<string> {
  const path = join(dir, `a${++n}.duckdb`);
  const db = await openDatabase(path);
  const fx = new AlertsFixture(db.connection);
  await fx.visitors('docs', '2026-01-05', '2026-03-03', '100');
  await fx.dayWindows('docs', 'searches', '2026-02-20', '2026-03-03');
  await fx.search('docs', '2026-03-02', 'oauth', 8, 0);
  db.close();
  return path;
}

function lines(r: CliResult): string[] {
  return r.stdout.split('\n').filter((l) => l !== '');
}

beforeAll(() => {
  ({ dir, cleanup } = tempDir('mlx-alerts-cli-'));
  rules = join(dir, 'rules.json');
  writeFileSync(rules, JSON.stringify({ pipeline: { maxDaysBehind: 100_000 } }));
});

afterAll(() => cleanup());

describe('mintlify-etl alerts as a process', () => {
  it('prints one line per alert and exits 6; a second run sends nothing new and exits 0; --resend sends again', async () => {
    const db = await database();
    const first = await runCli(['alerts', '--db', db, '--rules', rules]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(6);
    expect(lines(first)).toHaveLength(1);
    expect(lines(first)[0]).toMatch(
      /^docs 2026-03-02 search al_[0-9a-f]{12} new search term without a click: "oauth" searched 8 times on 2026-03-02/,
    );
    const second = await runCli(['alerts', '--db', db, '--rules', rules]);
    expect({ code: second.code, stdout: second.stdout }).toEqual({ code: 0, stdout: '' });
    expect(second.stderr).toBe(
      'mintlify-etl: 1 alert(s) already sent by an earlier run, not sent again (--resend sends them)\n',
    );
    const resent = await runCli(['alerts', '--db', db, '--rules', rules, '--resend', '--json']);
    expect(resent.code).toBe(6);
    const json = JSON.parse(resent.stdout) as { alerts: { id: string; rule: string }[]; delivered: null };
    expect(json.alerts.map((a) => a.rule)).toEqual(['search']);
    expect(json.alerts[0]?.id).toBe(lines(first)[0]?.split(' ')[3]);
    expect(json.delivered).toBeNull();
  });

  it('says once, on stderr, why a rule could not run: a missing day', async () => {
    const db = await database();
    const r = await runCli(['alerts', '--db', db, '--rules', rules, '--day', '2026-03-09']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'mintlify-etl: note: docs: traffic: 2026-03-09 is missing or partial in visitors: no traffic alert from it\n',
    );
  });

  it('delivers through a webhook that refused once: exactly once, over two runs, and never shows the URL', async () => {
    const db = await database();
    const hook = await startWebhookReceiver([400, 200]);
    try {
      const env = { MINTLIFY_ETL_WEBHOOK_URL: hook.url };
      const failed = await runCli(['alerts', '--db', db, '--rules', rules], env);
      expect(failed.code).toBe(4);
      expect(failed.stderr).toBe(
        'mintlify-etl: webhook delivery failed: the webhook answered 400; the 1 alert(s) were not delivered and go again on the next run\n',
      );
      const retried = await runCli(['alerts', '--db', db, '--rules', rules, '--json'], env);
      expect(retried.code).toBe(6);
      expect(JSON.parse(retried.stdout)).toMatchObject({ delivered: true, deliveryError: null });
      const quiet = await runCli(['alerts', '--db', db, '--rules', rules, '--webhook', hook.url]);
      expect(quiet.code).toBe(0);
      expect(hook.bodies).toHaveLength(2);
      expect(hook.accepted).toHaveLength(1);
      expect((hook.accepted[0] as { text: string }).text).toContain('"oauth" searched 8 times');
      for (const r of [failed, retried, quiet]) expect(r.stdout + r.stderr).not.toContain(hook.token);
      const rows = await readRows<{ delivered: boolean; alert: string }>(
        db,
        'SELECT delivered, alert FROM alerts_sent',
      );
      expect(rows.map((r) => r.delivered)).toEqual([true]);
      expect(readFileSync(db).includes(hook.token)).toBe(false);
    } finally {
      await hook.close();
    }
  });

  it('masks the webhook URL in its own errors', async () => {
    const db = await database();
    const r = await runCli([
      'alerts',
      '--db',
      db,
      '--rules',
      rules,
      '--webhook',
      'ftp://hooks.example/s3cr3t-path',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mintlify-etl: --webhook must be an http(s) URL\n');
  });

  it('refuses a rules file with a wrong key, naming it, with exit 2', async () => {
    const db = await database();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ assistant: { increasePoints: 'lots' } }));
    const r = await runCli(['alerts', '--db', db, '--rules', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mintlify-etl: --rules .*bad\.json: assistant\.increasePoints: /);
  });

  it(
    'reads a rules file only when it is a regular file: a FIFO or a device is refused at once with exit 2',
    async () => {
      const db = await database();
      const fifo = join(dir, 'rules.fifo');
      execFileSync('mkfifo', [fifo]);
      const [fromFifo, fromDevice] = await Promise.all([
        runCli(['alerts', '--db', db, '--rules', fifo]),
        runCli(['alerts', '--db', db, '--rules', '/dev/zero']),
      ]);
      expect(fromFifo.code).toBe(2);
      expect(fromFifo.stderr).toMatch(
        /^mintlify-etl: --rules .*rules\.fifo is a FIFO, not a regular file: give a JSON file\n$/,
      );
      expect(fromDevice.code).toBe(2);
      expect(fromDevice.stderr).toBe(
        'mintlify-etl: --rules /dev/zero is a device, not a regular file: give a JSON file\n',
      );
    },
    HANG_GUARD_MS,
  );

  it('refuses a rules file over 1 MiB with exit 2, saying its size', async () => {
    const db = await database();
    const big = join(dir, 'big.json');
    writeFileSync(big, `{"pipeline": {"maxDaysBehind": 100000}}${' '.repeat(1024 * 1024)}`);
    const r = await runCli(['alerts', '--db', db, '--rules', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^mintlify-etl: --rules .*big\.json is 1\.0 MiB: a rules file is at most 1 MiB\n$/,
    );
  });

  it('accepts a rules file that starts with a UTF-8 byte order mark (as Windows editors save it)', async () => {
    const db = await database();
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, `\uFEFF${JSON.stringify({ pipeline: { maxDaysBehind: 100_000 } })}`);
    const r = await runCli(['alerts', '--db', db, '--rules', bom]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(6);
    expect(lines(r)).toHaveLength(1);
  });
});
