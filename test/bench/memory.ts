import { reproduce, type Bench, type BenchContext, type BenchResult } from './context.js';
import { syncProcess, type SyncRun } from './e2e.js';
import { BIG_DAY_ROWS, measureBigDay } from './memory-big-day.js';
import { measureRealSiteReads } from './memory-real-site.js';
import { runCliProcess, startEmulatorProcess } from './procs.js';
import { fixed, showSpread, spread, table, thousands, verdict } from './stats.js';

export const memoryBench: Bench = {
  id: 'memory',
  title: '5. Peak memory of the sync process',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const runs = ctx.quick ? 1 : 3;
    const paths = 5000;
    const ranges = ctx.quick ? [30, 90] : [365, 1095];
    const longest = ranges.at(-1) as number;
    // What Node + the CLI + DuckDB cost before any work: the floor under every figure below.
    const idle = await runCliProcess(['--version'], {});
    const emu = await startEmulatorProcess(['--days', String(longest + 1), '--paths', String(paths)]);
    const byRange = new Map<number, SyncRun[]>();
    try {
      for (let i = 0; i < runs; i++) {
        for (const days of ranges) {
          const r = await syncProcess(emu, days);
          byRange.set(days, [...(byRange.get(days) ?? []), r]);
          ctx.log(
            `memory: ${days} days run ${i + 1}/${runs}: peak RSS ${fixed(r.maxRssMiB ?? NaN, 0)} MiB, ${thousands(r.summary.rows)} rows in ${fixed(r.summary.durationMs / 1000, 1)} s`,
          );
        }
      }
    } finally {
      await emu.close();
    }
    const peak = (days: number) => spread((byRange.get(days) ?? []).map((r) => r.maxRssMiB ?? NaN));
    const [short, long] = ranges as [number, number];
    const ratios = spread(
      (byRange.get(long) ?? []).map(
        (r, i) => (r.maxRssMiB ?? NaN) / ((byRange.get(short) ?? [])[i]?.maxRssMiB ?? NaN),
      ),
    );
    const worst = Math.max(...ranges.map((d) => peak(d).max));
    const bigDay = await measureBigDay(BIG_DAY_ROWS, (line) => ctx.log(line), runs);
    const realSite = await measureRealSiteReads((line) => ctx.log(line));
    const markdown = [
      `\`/usr/bin/time -f %M node dist/src/cli/main.js sync --from <today-N> --db <fresh> --rate-limit 1000000/1h --json\` (default concurrency 4) against an emulator process with ${thousands(paths)} paths and no latency. Baseline: \`node dist/src/cli/main.js --version\` peaks at ${fixed(idle.maxRssMiB ?? NaN, 0)} MiB.`,
      '',
      table(
        ['range', 'requests', 'rows', 'peak RSS MiB', 'sync s'],
        ranges.map((d) => {
          const rs = byRange.get(d) ?? [];
          return [
            `${d} days`,
            thousands(rs[0]?.summary.requests ?? NaN),
            thousands(rs[0]?.summary.rows ?? NaN),
            showSpread(peak(d), 0),
            showSpread(spread(rs.map((r) => r.summary.durationMs / 1000)), 1),
          ];
        }),
      ),
      '',
      `- Peak ${ranges.at(-1)} days / ${ranges[0]} days: ${showSpread(ratios, 3)} (target < 1.2: ${verdict(ratios.median < 1.2)}); worst peak ${fixed(worst, 0)} MiB (target < 300: ${verdict(worst < 300)}).`,
      '',
      bigDay,
      '',
      realSite,
      '',
      reproduce('memory'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
