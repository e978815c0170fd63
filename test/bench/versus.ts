import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { prepareBaseline, type Baseline } from './baseline.js';
import { reproduce, scratch, type Bench, type BenchContext, type BenchResult } from './context.js';
import { CLI, runCliProcess, startEmulatorProcess, type EmulatorProcess } from './procs.js';
import { fixed, showSpread, spread, table, thousands, verdict, type Spread } from './stats.js';

/*
 * This code against an older commit of itself, the same workload side by side: a restructuring
 * that moves code around must not make a sync slower, and only a run of both on the same machine
 * at the same time can tell (a figure from another day on a shared box proves little).
 */

/** The last commit of 2026-11-23: the code before the PostgreSQL destination and the restructuring. */
export const DEFAULT_BASELINE = '6cb36afa5d3afb19a22747855c5524a031f1ade0';
export const VERSUS_DAYS = 46;

/** One `sync --json` process: what it printed and what the kernel counted. */
export interface SyncSample {
  /** Spawn to exit: Node start-up, imports, opening and migrating the database, the sync, exit. */
  readonly wallMs: number;
  /** The sync's own `durationMs` from its JSON summary. */
  readonly syncMs: number;
  /** User + system CPU seconds of the CLI process (undefined without /usr/bin/time). */
  readonly cpuS: number | undefined;
  readonly maxRssMiB: number | undefined;
  readonly requests: number;
  readonly rows: number;
}

/** Both builds' samples, in the order they were taken (pair i = old[i] and current[i]). */
export interface VersusMeasurements {
  readonly commit: string;
  readonly days: number;
  readonly old: readonly SyncSample[];
  readonly current: readonly SyncSample[];
  /** Wall ms of `sync --help` (start-up and the sync command's imports, no work). */
  readonly oldHelpMs: readonly number[];
  readonly currentHelpMs: readonly number[];
  /** 1-minute load average before and after (the machine's 2 cores are shared). */
  readonly load: readonly [number, number];
  readonly cores: number;
  /** Whether the baseline build has a PostgreSQL destination at all. */
  readonly oldHasPostgres: boolean;
}

interface SyncSummary {
  readonly status: string;
  readonly requests: number;
  readonly rows: number;
  readonly durationMs: number;
}

/** `sync --from <today-days> --streams visitors` into a fresh DuckDB file with the given build's CLI. */
async function syncOnce(cli: string, emu: EmulatorProcess, days: number): Promise<SyncSample> {
  const s = scratch('mintlify-versus-');
  try {
    // Only flags 11-23's CLI has too; a budget that never binds, so no run waits for it.
    const args = ['sync', '--from', addDays(todayUtc(), -days), '--db', s.db, '--streams', 'visitors'];
    const r = await runCliProcess(
      [...args, '--rate-limit', '1000000/1h', '--json'],
      { MINTLIFY_API_URL: emu.url, MINTLIFY_API_KEY: emu.apiKey, MINTLIFY_PROJECT_ID: emu.projectId },
      cli,
    );
    if (r.code !== 0) throw new Error(`${cli}: sync exited ${r.code}: ${r.stderr.slice(-1000)}`);
    const summary = JSON.parse(r.stdout) as SyncSummary;
    if (summary.status !== 'succeeded') throw new Error(`${cli}: sync ended ${summary.status}`);
    return {
      wallMs: r.wallMs,
      syncMs: summary.durationMs,
      cpuS: r.cpuS,
      maxRssMiB: r.maxRssMiB,
      requests: summary.requests,
      rows: summary.rows,
    };
  } finally {
    s.remove();
  }
}

async function helpOnce(cli: string): Promise<number> {
  const r = await runCliProcess(['sync', '--help'], {}, cli);
  if (r.code !== 0) throw new Error(`${cli}: sync --help exited ${r.code}`);
  return r.wallMs;
}

/**
 * Pairs taken alternately old-new, new-old, ... (ABBA), after one untimed pair that warms the
 * disk cache and the emulator's JIT: a neighbour's load or a slow drift hits both sides alike.
 */
export function pairOrder(runs: number): ('old' | 'current')[][] {
  return Array.from({ length: runs }, (_, i) => (i % 2 === 0 ? ['old', 'current'] : ['current', 'old']));
}

async function measure(
  ctx: BenchContext,
  baseline: Extract<Baseline, { ok: true }>,
  runs: number,
): Promise<VersusMeasurements> {
  const cli = { old: baseline.cli, current: CLI };
  const load0 = loadavg()[0] as number;
  const out = { old: [] as SyncSample[], current: [] as SyncSample[] };
  const help = { old: [] as number[], current: [] as number[] };
  // One emulator for both, the current one (the default site: 90 days, 600 paths), in its own process.
  const emu = await startEmulatorProcess([]);
  try {
    for (const side of ['old', 'current'] as const) await syncOnce(cli[side], emu, VERSUS_DAYS);
    for (const [i, order] of pairOrder(runs).entries()) {
      for (const side of order) {
        out[side].push(await syncOnce(cli[side], emu, VERSUS_DAYS));
        help[side].push(await helpOnce(cli[side]));
      }
      ctx.log(
        `versus: pair ${i + 1}/${runs}: 11-23 ${fixed((out.old.at(-1)?.wallMs ?? NaN) / 1000)} s, now ${fixed((out.current.at(-1)?.wallMs ?? NaN) / 1000)} s`,
      );
    }
  } finally {
    await emu.close();
  }
  return {
    commit: baseline.commit,
    days: VERSUS_DAYS,
    old: out.old,
    current: out.current,
    oldHelpMs: help.old,
    currentHelpMs: help.current,
    load: [load0, loadavg()[0] as number],
    cores: cpus().length,
    oldHasPostgres: existsSync(join(baseline.dir, 'dist', 'src', 'load', 'postgres')),
  };
}

function seconds(values: readonly number[]): string {
  return showSpread(spread(values.map((ms) => ms / 1000)));
}

function sideRow(label: string, samples: readonly SyncSample[], helpMs: readonly number[]): string[] {
  const cpu = samples.map((s) => s.cpuS).filter((c): c is number => c !== undefined);
  const rss = samples.map((s) => s.maxRssMiB).filter((c): c is number => c !== undefined);
  return [
    label,
    seconds(samples.map((s) => s.wallMs)),
    seconds(samples.map((s) => s.syncMs)),
    seconds(samples.map((s) => s.wallMs - s.syncMs)),
    seconds(helpMs),
    cpu.length > 0 ? showSpread(spread(cpu)) : 'n/a',
    rss.length > 0 ? showSpread(spread(rss), 0) : 'n/a',
    [...new Set(samples.map((s) => `${thousands(s.requests)} / ${thousands(s.rows)}`))].join(', '),
  ];
}

/** current / old of each pair (taken back to back, so they share the machine's state). */
export function pairRatios(m: VersusMeasurements, of: (s: SyncSample) => number): Spread {
  return spread(m.current.map((c, i) => of(c) / of(m.old[i] as SyncSample)));
}

/** Where the time went, found by hand when this section was written: context, not this run's figures. */
const FOUND = [
  'Found by hand (2026-11-27, the machine at load average 10–14, so only large differences show):',
  "- The sync's own work is the same on both builds (its durationMs and its CPU within a few per cent). What grew is around it.",
  '- Start-up: a DuckDB sync loaded the PostgreSQL driver (pg, pg-types, pg-protocol, pg-copy-streams: 38 CommonJS modules, and 14 of load/postgres) through `cli/destination-flags.ts`; now `placeOf` imports it only for a `postgresql://` --db (test/unit/startup-imports.test.ts). CPU of `sync --help`, median of 20: 11-23 1.25 s, before 1.29 s, after 1.22 s. A sync still loads 93 of its own modules where 11-23 loaded 54.',
  '- Opening for writing: a sync opens the file for writing three times (plan, writer, run record), on both builds, and each open checks the migrations and re-creates every view, each close checkpoints. With 9 migrations and 15 views instead of 5 and 13, re-opening a migrated file took 420–470 ms against 220–300 ms (median of 10), of which creating the views ~73 ms against 25–52 ms; the rest is opening and closing a bigger catalog.',
  '- Not done (src/load/ is being moved): re-create the views only when their rendered text changed (or once per file per process: two of the three opens would skip it), check the migrations once per process, and keep one write handle across the run when no budget wait is due. A copy patched to migrate and apply the views once per process: 7 pairs, wall 7.41 vs 8.05 s, CPU 3.47 vs 3.50 s: within the noise of that hour.',
];

/** The section's text from its measurements (pure, so its arithmetic and verdict are tested). */
export function versusMarkdown(m: VersusMeasurements, measuredAt: Date): string {
  const short = m.commit.slice(0, 7);
  const wall = { old: spread(m.old.map((s) => s.wallMs)), now: spread(m.current.map((s) => s.wallMs)) };
  const ratio = wall.now.median / wall.old.median;
  const paired = pairRatios(m, (s) => s.wallMs);
  const median = (of: (s: SyncSample) => number | undefined, side: readonly SyncSample[]): number =>
    spread(side.map(of).filter((x): x is number => x !== undefined)).median;
  const syncRatio = median((s) => s.syncMs, m.current) / median((s) => s.syncMs, m.old);
  const cpuRatio = median((s) => s.cpuS, m.current) / median((s) => s.cpuS, m.old);
  const busy = Math.max(...m.load) > m.cores;
  const sameWork =
    new Set([...m.old, ...m.current].map((s) => `${s.requests}/${s.rows}`)).size === 1
      ? 'Both made the same requests and loaded the same rows'
      : '**the two builds did not make the same requests or load the same rows** (see the last column)';
  return [
    `Measured ${measuredAt.toISOString()}. A ${m.days}-day backfill of the visitors stream, the CLI as a process (\`node <build>/dist/src/cli/main.js sync --from <today-${m.days}> --db <fresh DuckDB file> --streams visitors --rate-limit 1000000/1h --json\`), against one emulator process of the current code with the default site (90 days, 600 paths, no latency) for both. The old build is commit ${short} (the last of 2026-11-23), \`git archive\`d, \`npm ci\`-ed and built once under the baseline cache (os.tmpdir()/mintlify-etl-baselines/<commit>, or MINTLIFY_BENCH_BASELINE_CACHE); another commit: MINTLIFY_BENCH_BASELINE=<rev>.`,
    '',
    `One untimed pair first (disk cache, the emulator's JIT), then ${m.old.length} pairs taken back to back in ABBA order (old, new, new, old, ...) so drift and neighbours hit both alike; after each sync, one \`sync --help\` of the same build (start-up and the sync command's imports, no work). Load average (1 min) ${fixed(m.load[0])} before, ${fixed(m.load[1])} after, on ${m.cores} cores shared with other work: compare the two rows, not the absolute seconds.`,
    '',
    table(
      [
        'build',
        'process s',
        'sync s (its durationMs)',
        'process − sync s',
        '`sync --help` s',
        'CPU s (user+sys)',
        'peak RSS MiB',
        'requests / rows',
      ],
      [sideRow(`11-23 (${short})`, m.old, m.oldHelpMs), sideRow('this code', m.current, m.currentHelpMs)],
    ),
    '',
    `- Ratio this code / 11-23, process time: **${fixed(ratio)}** (medians); per pair ${showSpread(paired)}; the sync's own time alone: ${fixed(syncRatio)}; CPU seconds of the process (less sensitive to a busy machine than wall time): ${fixed(cpuRatio)}. ${sameWork}.`,
    `- At least as fast as 11-23's (ratio ≤ 1.00): ${verdict(ratio <= 1)}.${busy ? ` The machine was busy (load average ${fixed(Math.max(...m.load), 1)} on ${m.cores} cores): wall times were several times a quiet run's and one pair's ratio could swing by a third, so this verdict is weak; the CPU ratio (${fixed(cpuRatio)}) is the steadier figure.` : ''}`,
    `- PostgreSQL: ${m.oldHasPostgres ? 'not measured here (benchmarks 8–10 measure it).' : `not measured: ${short} has no PostgreSQL destination (it came on 2026-11-24), its \`--db\` takes a DuckDB file only.`}`,
    '',
    ...FOUND,
    '',
    `${reproduce('versus')} (\`--update\` writes this section into BENCHMARKS.md; the first run installs and builds the old commit: a minute or two).`,
  ].join('\n');
}

export const versusBench: Bench = {
  id: 'versus',
  title: `11. A ${VERSUS_DAYS}-day backfill of one stream: this code vs 11-23's, side by side`,
  async run(ctx: BenchContext): Promise<BenchResult> {
    const head = { id: this.id, title: this.title };
    const rev = process.env['MINTLIFY_BENCH_BASELINE'] ?? DEFAULT_BASELINE;
    // Never fails the bench: no git, no commit, no registry or a broken old build is a skipped section.
    const baseline = await prepareBaseline(rev, { repo: packageRoot(), log: (m) => ctx.log(m) });
    if (!baseline.ok) return { ...head, markdown: `Skipped: ${baseline.reason}.` };
    try {
      const m = await measure(ctx, baseline, ctx.quick ? 2 : 5);
      return { ...head, markdown: versusMarkdown(m, new Date()) };
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return { ...head, markdown: `Skipped: a run failed: ${why.split('\n').slice(0, 3).join(' / ')}` };
    }
  },
};
