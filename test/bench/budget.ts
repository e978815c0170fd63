import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { runSync } from '../../src/pipeline/sync.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { parseRateLimit } from '../../src/util/duration.js';
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

const LIMIT = 200;
const WINDOW_MS = 5_000;
const SPEC = `${LIMIT}/5s`;

interface Outcome {
  readonly requests: number;
  readonly rejected429: number;
  /** First to last grant, from the request ledger. */
  readonly spanMs: number;
  /** Median time from grant to response. */
  readonly durationMs: number;
  readonly wallMs: number;
}

/** The fewest days (ending yesterday) whose backfill needs more than `windows` full budgets. */
function daysNeeding(emu: Emulator, windows: number): string[] {
  const today = todayUtc();
  for (let n = 1; ; n++) {
    const range = dayRange(addDays(today, -n), today);
    if (minimumRequests(emu.dataset, range) > windows * LIMIT) return range;
  }
}

async function once(windows: number): Promise<Outcome> {
  const emu = await startEmulator({ seed: 1, days: 400, paths: 2000, rateLimit: SPEC });
  const s = scratch();
  try {
    const range = daysNeeding(emu, windows);
    const t0 = performance.now();
    const summary = await runSync(
      syncOptions(emu, s.db, { from: range[0], rateLimit: parseRateLimit(SPEC) }),
    );
    const wallMs = performance.now() - t0;
    if (summary.status !== 'succeeded') throw new Error(`budget run ended ${summary.status}`);
    const db = await openDatabase(s.db, { readOnly: true });
    try {
      const [r] = await queryRows(
        db.connection,
        `SELECT count(*) AS n, epoch_ms(max(requested_at)) - epoch_ms(min(requested_at)) AS span, median(duration_ms) AS d
         FROM api_requests WHERE endpoint = 'visitors'`,
      );
      return {
        requests: Number(r?.['n']),
        rejected429: emu.stats.byStatus[429] ?? 0,
        spanMs: Number(r?.['span']),
        durationMs: Number(r?.['d']),
        wallMs,
      };
    } finally {
      db.close();
    }
  } finally {
    await emu.close();
    s.remove();
  }
}

export const budgetBench: Bench = {
  id: 'budget',
  title: '2. Budget utilisation',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const runs = ctx.quick ? 2 : 5;
    const windows = ctx.quick ? 2 : 4;
    const outcomes: Outcome[] = [];
    for (let i = 0; i < runs; i++) {
      ctx.log(`budget: run ${i + 1}/${runs} (${SPEC}, > ${windows} windows)`);
      outcomes.push(await once(windows));
    }
    // With N requests and at most LIMIT per WINDOW_MS, the last one can go no earlier than
    // floor((N-1)/LIMIT) windows after the first: the allowed span.
    const allowed = (o: Outcome): number => Math.floor((o.requests - 1) / LIMIT) * WINDOW_MS;
    // The client counts each request from its completion (RequestBudget.complete), so each
    // budget cycle is longer by one request's grant-to-response time.
    const achievable = (o: Outcome): number =>
      Math.floor((o.requests - 1) / LIMIT) * (WINDOW_MS + o.durationMs);
    const util = spread(outcomes.map((o) => allowed(o) / o.spanMs));
    const ofAchievable = spread(outcomes.map((o) => achievable(o) / o.spanMs));
    const ceiling = spread(outcomes.map((o) => allowed(o) / achievable(o)));
    const no429 = outcomes.every((o) => o.rejected429 === 0);
    const rows = outcomes.map((o, i) => [
      String(i + 1),
      thousands(o.requests),
      fixed(o.spanMs / 1000, 3),
      fixed(allowed(o) / 1000, 1),
      fixed(o.durationMs, 1),
      fixed(allowed(o) / o.spanMs, 4),
      fixed(achievable(o) / o.spanMs, 4),
      String(o.rejected429),
      fixed(o.wallMs / 1000, 1),
    ]);
    const markdown = [
      `Emulator limited to ${SPEC} (429 past it), sync with \`--rate-limit ${SPEC}\`, concurrency 4, a backfill needing more than ${windows} full budget windows (> ${windows * LIMIT} requests).`,
      '',
      'Utilisation = allowed span / achieved span, where the achieved span is first to last request (grant times, from the `api_requests` ledger) and the allowed span is floor((N−1)/200) × 5 s, the soonest the N-th request may go under the limit. This is the achieved rate over the allowed rate, measured over the part of the run the limit governs (a burst of 200 at t=0 would otherwise make any rate look better than the limit).',
      '',
      'Why 1.00 is not reachable: `RequestBudget.complete` re-dates each request to when its response arrived, because the server counts a request somewhere between our grant and its response, and a burst queued in the connection pool arrives bunched up (41 arrivals in 3.8 s were seen under 40/4s). A slot therefore frees one request duration later than a grant-based count would free it: each 5 s cycle is 5 s + d long, where d is the grant-to-response time. The achievable utilisation is 5000 / (5000 + d), listed as "ceiling".',
      '',
      table(
        [
          'run',
          'requests',
          'span s',
          'allowed s',
          'median d ms',
          'utilisation',
          'vs achievable',
          '429s',
          'wall s',
        ],
        rows,
      ),
      '',
      `- Utilisation ${showSpread(util, 4)}; ceiling 5000/(5000+d) ${showSpread(ceiling, 4)}; utilisation / ceiling ${showSpread(ofAchievable, 4)}.`,
      `- Target ≥ 0.95: ${verdict(util.median >= 0.95)}. Zero 429 responses: ${verdict(no429)}.`,
      '',
      reproduce('budget'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
