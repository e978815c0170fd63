import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { startCliServer, type CliServer } from '../helpers/cli-server.js';
import { extractRunnableBlocks, type RunnableBlock } from '../helpers/doc-blocks.js';

/**
 * The docs cannot drift from the tool: every fenced block marked `<!-- runnable -->` in README.md
 * and docs/*.md runs against the emulator, as written, with `mintlify-etl` being the built CLI
 * (run in this process through test/helpers/cli-server.ts: the blocks run about 50 commands).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const BLOCKS: RunnableBlock[] = PAGES.flatMap((page) =>
  extractRunnableBlocks(page, readFileSync(join(ROOT, page), 'utf8')),
);

/**
 * The day the pages' example outputs were made on: the service and every command take it (each
 * command's clock starts at NOW and ticks), so the examples mean the same on every day the suite runs.
 */
const TODAY = '2026-11-23';
const NOW = `${TODAY}T06:00:00.000Z`;
let emu: Emulator;
let cli: CliServer;
let template: string;

/**
 * The database a reader has after some nights of syncing, for the pages that show queries, reports
 * and exports: every stream but feedback_by_page, synced an hour before (its requests no longer
 * count against this hour's budget, so the pages' own check and sync examples have a budget).
 */
async function syncTemplate(): Promise<void> {
  template = join(mkdtempSync(join(tmpdir(), 'mlx-docs-template-')), 'analytics.duckdb');
  const from = addDays(TODAY, -35);
  const streams =
    'visitors,views,searches,feedback,assistant,caller_stats,assistant_threads,visitors_weekly,visitors_monthly';
  const r = await runCli(
    [
      'sync',
      '--db',
      template,
      '--streams',
      streams,
      '--from',
      from,
      '--rate-limit',
      '100000/1h',
      '--max-threads',
      '20',
      '-q',
    ],
    {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_NOW: NOW,
    },
  );
  expect(r.code, r.stderr).toBe(0);
  const db = await DuckDBInstance.create(template);
  const c = await db.connect();
  await c.run('UPDATE api_requests SET requested_at = requested_at - INTERVAL 2 HOUR; CHECKPOINT');
  c.closeSync();
  db.closeSync();
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 5, days: 40, paths: 120, latencyMs: 0, today: TODAY });
  cli = await startCliServer();
  await syncTemplate();
});

afterAll(async () => {
  await emu?.close();
  await cli?.close();
});

/** Each page gets its own folder, HOME and database: its blocks run in order and build on each other. */
const homes = new Map<string, string>();
function homeOf(page: string): string {
  let home = homes.get(page);
  if (home === undefined) {
    home = mkdtempSync(join(tmpdir(), 'mlx-docs-'));
    mkdirSync(join(home, 'data'));
    copyFileSync(template, join(home, 'data', 'analytics.duckdb'));
    homes.set(page, home);
  }
  return home;
}

function runBlock(block: RunnableBlock): Promise<{ code: number | null; output: string }> {
  const home = homeOf(block.page);
  const child = spawn('bash', ['-eo', 'pipefail', '-c', block.script], {
    cwd: home,
    env: {
      PATH: `${cli.bin}:${process.env['PATH'] ?? ''}`,
      HOME: home,
      CI: '1',
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_DB: join(home, 'data', 'analytics.duckdb'),
      MINTLIFY_ETL_NOW: NOW,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A block that asks for the key at a prompt (`read -rsp`) gets the emulator's.
  child.stdin.end(`${emu.apiKey}\n`);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the documentation examples', () => {
  it('marks runnable blocks in the README and in the docs pages', () => {
    expect(BLOCKS.filter((b) => b.page === 'README.md').length).toBeGreaterThan(0);
    expect(new Set(BLOCKS.map((b) => b.page)).size).toBeGreaterThan(3);
  });

  for (const block of BLOCKS) {
    // A block runs several commands one after another: its bound is theirs together.
    it(`${block.page}:${block.line} runs and exits 0`, { timeout: 180_000 }, async () => {
      const r = await runBlock(block);
      expect(r.code, `${block.script}\n--- output ---\n${r.output.slice(-3000)}`).toBe(0);
    });
  }
});
