import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Issue 27, item 2: report, gaps and digest failed "Out of Memory Error: failed to pin block
 * (61.0 MiB/61.0 MiB used)" on a real site's database (21 days, 6,218 paths, answers up to 30,140
 * characters, queries up to 864). The emulator's default data now carries those shapes; this
 * test syncs such a site's 21 days and runs every read command on it as a user would.
 */
const TODAY = '2026-03-02';
const NOW = `${TODAY}T06:00:00.000Z`;
const PATHS = 6218;

let emu: Emulator;
let dir: string;
let cleanup: () => void;
let env: Record<string, string>;

function ok(r: CliResult, codes: readonly number[] = [0]): void {
  expect(r.stderr).not.toMatch(/out of memory|internal error/i);
  expect(codes, r.stderr).toContain(r.code);
}

beforeAll(async () => {
  const t = tempDir('mlx-real-site-');
  dir = t.dir;
  cleanup = t.cleanup;
  emu = await startEmulator({ seed: 7, days: 22, paths: PATHS, today: TODAY, latencyMs: 0 });
  env = {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_DB: join(dir, 'site.duckdb'),
    MINTLIFY_ETL_NOW: NOW,
  };
  const r = await runCli(['sync', '--from', '2026-02-09', '--rate-limit', '100000/1h', '-q'], env);
  expect(r.code, r.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await emu?.close();
  cleanup?.();
});

describe('every read command on a real site’s 21 days', () => {
  it('the database holds a real site’s shapes: thousands of paths, 30,000-character answers, 864-character queries', async () => {
    const db = await openDatabase(env['MINTLIFY_ETL_DB'] as string, { readOnly: true });
    try {
      const [shape] = await queryRows(
        db.connection,
        `SELECT (SELECT count(DISTINCT path) FROM page_daily) AS paths,
           (SELECT max(length(response)) FROM assistant_turns) AS answer,
           (SELECT max(length(query)) FROM assistant_turns) AS question,
           (SELECT max(length(query)) FROM search_daily) AS search`,
      );
      expect(Number(shape?.['paths'])).toBeGreaterThan(5000);
      expect(Number(shape?.['answer'])).toBeGreaterThan(20_000);
      // DuckDB's length() counts a combining accent or a ZWJ emoji as one character.
      expect(Number(shape?.['question'])).toBeGreaterThan(850);
      expect(Number(shape?.['search'])).toBeGreaterThan(850);
    } finally {
      db.close();
    }
  });

  it('report, report --html, gaps, gaps --json, digest, status, alerts --json, query and export all succeed', async () => {
    ok(await runCli(['report'], env));
    ok(await runCli(['report', '--html', join(dir, 'r.html')], env));
    ok(await runCli(['gaps'], env));
    const gaps = await runCli(['gaps', '--json', '--limit', '50'], env);
    ok(gaps);
    const excerpts = (JSON.parse(gaps.stdout) as { gaps: { answerExcerpt?: string | null }[] }).gaps
      .map((g) => g.answerExcerpt)
      .filter((e): e is string => typeof e === 'string');
    expect(excerpts.length).toBeGreaterThan(0);
    for (const e of excerpts) expect(Array.from(e).length).toBeLessThanOrEqual(300);
    ok(await runCli(['digest'], env));
    ok(await runCli(['status'], env));
    ok(await runCli(['alerts', '--json'], env), [0, 6]);
    ok(
      await runCli(
        ['query', 'SELECT query, response FROM assistant_turns ORDER BY length(response) DESC'],
        env,
      ),
    );
    ok(await runCli(['export', '--out', join(dir, 'export')], env));
    ok(await runCli(['export', '--out', join(dir, 'export-csv'), '--format', 'csv'], env));
  }, 600_000);
});
