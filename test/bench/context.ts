import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateApiKey } from '../../src/api/key.js';
import type { Dataset } from '../../src/emulator/index.js';
import type { SyncOptions } from '../../src/pipeline/sync.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';
import { visitors } from '../../src/streams/visitors.js';

export interface BenchContext {
  readonly quick: boolean;
  log(message: string): void;
}

export interface BenchResult {
  readonly id: string;
  readonly title: string;
  /** Markdown body of the section, including how to reproduce it. */
  readonly markdown: string;
}

export interface Bench {
  readonly id: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** A fresh folder for one measurement's database; removed by the returned function. */
export function scratch(prefix = 'mintlify-bench-'): { dir: string; db: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, db: join(dir, 'bench.duckdb'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One request per 250 rows, at least one per day: what a perfect client spends. */
export function minimumRequests(dataset: Dataset, days: readonly string[]): number {
  return days.reduce((n, d) => n + Math.max(1, Math.ceil(dataset.pages(d).length / 250)), 0);
}

/** In-process sync options against an emulator, with an effectively unlimited budget. */
export function syncOptions(
  emu: { url: string; projectId: string; apiKey: string },
  dbPath: string,
  over: Partial<SyncOptions> = {},
): SyncOptions {
  return {
    projects: [emu.projectId],
    // Benchmarks 1-5 measure the visitors pipeline as before streams (their figures stay comparable);
    // benchmark 6 measures the streams.
    streams: [visitors],
    lookback: 3,
    dbPath,
    rateLimit: parseRateLimit('1000000/1h'),
    maxWaitMs: 120_000,
    concurrency: 4,
    includeToday: false,
    dryRun: false,
    apiUrl: emu.url,
    apiKey: validateApiKey(emu.apiKey, 'bench key'),
    logger: silentLogger,
    backoff: { minMs: 5, maxMs: 50 },
    ...over,
  };
}

export function reproduce(only: string, quickNote = ''): string {
  return `Reproduce: \`npm run bench -- --only ${only}\`${quickNote}`;
}
