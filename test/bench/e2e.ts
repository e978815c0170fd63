import { addDays, todayUtc } from '../../src/util/day.js';
import { reproduce, scratch, type Bench, type BenchContext, type BenchResult } from './context.js';
import { runCliProcess, startEmulatorProcess, type EmulatorProcess } from './procs.js';
import { fixed, showSpread, spread, table, thousands, verdict } from './stats.js';

const LATENCY_MS = 20;
const CONCURRENCY = 4;

interface Summary {
  readonly status: string;
  readonly requests: number;
  readonly rows: number;
  readonly durationMs: number;
  readonly windows: { loaded: number };
}

export interface SyncRun {
  readonly summary: Summary;
  readonly wallMs: number;
  readonly maxRssMiB: number | undefined;
}

/** `mintlify-etl sync --json` as its own process against an emulator process. */
export async function syncProcess(
  emu: EmulatorProcess,
  days: number,
  extra: readonly string[] = [],
): Promise<SyncRun> {
  const s = scratch();
  try {
    const from = addDays(todayUtc(), -days);
    const r = await runCliProcess(
      ['sync', '--from', from, '--db', s.db, '--rate-limit', '1000000/1h', '--json', ...extra],
      { MINTLIFY_API_URL: emu.url, MINTLIFY_API_KEY: emu.apiKey, MINTLIFY_PROJECT_ID: emu.projectId },
    );
    if (r.code !== 0) throw new Error(`sync exited ${r.code}: ${r.stderr.slice(-2000)}`);
    const summary = JSON.parse(r.stdout) as Summary;
    if (summary.status !== 'succeeded') throw new Error(`sync ended ${summary.status}`);
    return { summary, wallMs: r.wallMs, maxRssMiB: r.maxRssMiB };
  } finally {
    s.remove();
  }
}

export const e2eBench: Bench = {
  id: 'e2e',
  title: '4. End-to-end backfill vs the latency ideal',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const runs = ctx.quick ? 2 : 5;
    const days = ctx.quick ? 90 : 365;
    const paths = 2000;
    const emu = await startEmulatorProcess([
      '--days',
      String(days + 1),
      '--paths',
      String(paths),
      '--latency-ms',
      String(LATENCY_MS),
    ]);
    const out: SyncRun[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        out.push(await syncProcess(emu, days, ['--concurrency', String(CONCURRENCY)]));
        const last = out.at(-1) as SyncRun;
        ctx.log(
          `e2e: run ${i + 1}/${runs}: ${last.summary.requests} requests in ${fixed(last.summary.durationMs, 0)} ms (process ${fixed(last.wallMs, 0)} ms)`,
        );
      }
    } finally {
      await emu.close();
    }
    // Pages of one day are sequential (each offset waits for the previous page's hasMore);
    // days run `CONCURRENCY` at a time; each page costs at least the emulator's latency.
    const ideal = (r: SyncRun): number => (r.summary.requests * LATENCY_MS) / CONCURRENCY;
    const eff = spread(out.map((r) => ideal(r) / r.summary.durationMs));
    const effProcess = spread(out.map((r) => ideal(r) / r.wallMs));
    const markdown = [
      `A ${days}-day backfill of a ${thousands(paths)}-path site: the emulator in its own process (\`node dist/src/cli/main.js emulator --port 0 --days ${days + 1} --paths ${paths} --latency-ms ${LATENCY_MS}\`), the sync as a process (\`node dist/src/cli/main.js sync --from <today-${days}> --db <fresh> --rate-limit 1000000/1h --concurrency ${CONCURRENCY} --json\`), a fresh database each run.`,
      '',
      `Ideal = windows / concurrency × pages per window × latency = requests × ${LATENCY_MS} ms / ${CONCURRENCY}. Efficiency = ideal / measured (the sync's own \`durationMs\`; "process" also counts Node start-up and exit).`,
      '',
      table(
        ['run', 'requests', 'rows', 'ideal s', 'sync s', 'process s', 'efficiency', 'efficiency (process)'],
        out.map((r, i) => [
          String(i + 1),
          thousands(r.summary.requests),
          thousands(r.summary.rows),
          fixed(ideal(r) / 1000, 2),
          fixed(r.summary.durationMs / 1000, 2),
          fixed(r.wallMs / 1000, 2),
          fixed(ideal(r) / r.summary.durationMs, 3),
          fixed(ideal(r) / r.wallMs, 3),
        ]),
      ),
      '',
      `- Efficiency ${showSpread(eff, 3)}; counting the process ${showSpread(effProcess, 3)}. Target ≥ 0.8: ${verdict(eff.median >= 0.8)}.`,
      '',
      reproduce('e2e'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
