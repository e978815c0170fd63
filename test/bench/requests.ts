import { startEmulator } from '../../src/emulator/index.js';
import { runSync } from '../../src/pipeline/sync.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import {
  minimumRequests,
  reproduce,
  scratch,
  syncOptions,
  type Bench,
  type BenchContext,
  type BenchResult,
} from './context.js';
import { fixed, showSpread, spread, table, thousands, verdict } from './stats.js';

interface Outcome {
  readonly faults: number;
  readonly seed: number;
  readonly requests: number;
  readonly minimum: number;
  readonly injected: number;
  readonly status: string;
  readonly wallMs: number;
}

async function once(days: number, paths: number, faults: number, faultSeed: number): Promise<Outcome> {
  const emu = await startEmulator({ seed: 1, days: days + 1, paths, faults, faultSeed });
  const s = scratch();
  try {
    const today = todayUtc();
    const range = dayRange(addDays(today, -days), today);
    const minimum = minimumRequests(emu.dataset, range);
    const t0 = performance.now();
    const summary = await runSync(syncOptions(emu, s.db, { from: range[0] }));
    return {
      faults,
      seed: faultSeed,
      requests: summary.requests,
      minimum,
      injected: emu.stats.faults,
      status: summary.status,
      wallMs: performance.now() - t0,
    };
  } finally {
    await emu.close();
    s.remove();
  }
}

export const requestsBench: Bench = {
  id: 'requests',
  title: '1. Request efficiency',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const days = ctx.quick ? 60 : 365;
    const paths = 2000;
    const faultRuns = ctx.quick ? 1 : 2;
    const outcomes: Outcome[] = [];
    ctx.log(`requests: clean ${days}-day backfill of ${paths} paths`);
    outcomes.push(await once(days, paths, 0, 1));
    for (let i = 0; i < faultRuns; i++) {
      ctx.log(`requests: faults 0.1, fault seed ${i + 11}`);
      outcomes.push(await once(days, paths, 0.1, i + 11));
    }
    const clean = outcomes[0] as Outcome;
    const faulty = outcomes.slice(1);
    const cleanRatio = clean.requests / clean.minimum;
    const extraOk = faulty.every((o) => o.requests - o.minimum === o.injected);
    const faultRatio = spread(faulty.map((o) => o.requests / o.minimum));
    const rows = outcomes.map((o) => [
      o.faults === 0 ? 'clean' : `faults ${o.faults} (seed ${o.seed})`,
      thousands(o.minimum),
      thousands(o.requests),
      fixed(o.requests / o.minimum, 3),
      thousands(o.requests - o.minimum),
      thousands(o.injected),
      o.status,
      fixed(o.wallMs / 1000, 1),
    ]);
    const markdown = [
      `A ${days}-day backfill of a ${thousands(paths)}-path site (emulator seed 1, in-process), concurrency 4, no rate limit.`,
      'Minimum = Σ over days of max(1, ceil(rows/250)). With faults, every extra request must be a retry of an injected failure.',
      '',
      table(
        ['run', 'minimum', 'requests', 'requests / minimum', 'extra', 'faults injected', 'status', 'wall s'],
        rows,
      ),
      '',
      `- Clean: **${fixed(cleanRatio, 3)}** (target 1.00: ${verdict(cleanRatio === 1)}).`,
      `- Faults 0.1: requests / minimum ${showSpread(faultRatio, 3)}; extra requests = injected faults in every run: ${verdict(extraOk)}.`,
      '',
      reproduce('requests'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
