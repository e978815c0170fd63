import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
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
  /** Where the sync's time went, from its own ledger (when asked for). */
  readonly breakdown?: Breakdown;
}

/**
 * A sync's time from its request ledger (api_requests) and run row (sync_runs), per worker
 * (totals over requests divided by the concurrency). A request's duration_ms runs from the
 * budget's grant to its body parsed and validated (MintlifyClient.request).
 */
export interface Breakdown {
  readonly requests: number;
  /** Mean grant-to-validated time of a request. */
  readonly meanRequestMs: number;
  /** Σ (duration − latency) / concurrency: the client's and server's time on top of the latency. */
  readonly overRequestsMs: number;
  /** Sync time not inside any request of a worker: durationMs − Σ duration / concurrency. */
  readonly betweenRequestsMs: number;
  /** From the run's start to the first request's grant (open, plan, first admission). */
  readonly beforeFirstMs: number;
  /** From the last response to the run's end (the last loads, final commit, checkpoint, close). */
  readonly afterLastMs: number;
}

async function breakdown(
  db: string,
  concurrency: number,
  latencyMs: number,
  durationMs: number,
): Promise<Breakdown> {
  const conn = await openDatabase(db, { readOnly: true });
  try {
    const [r] = await queryRows(
      conn.connection,
      `SELECT count(*)::INT AS n, sum(duration_ms)::DOUBLE AS total,
         epoch_ms(min(requested_at))::DOUBLE AS first_at,
         max(epoch_ms(requested_at) + duration_ms)::DOUBLE AS last_end,
         (SELECT epoch_ms(started_at)::DOUBLE FROM sync_runs) AS started,
         (SELECT epoch_ms(finished_at)::DOUBLE FROM sync_runs) AS finished
       FROM api_requests`,
    );
    const n = Number(r?.['n']);
    const total = Number(r?.['total']);
    return {
      requests: n,
      meanRequestMs: total / n,
      overRequestsMs: (total - n * latencyMs) / concurrency,
      betweenRequestsMs: durationMs - total / concurrency,
      beforeFirstMs: Number(r?.['first_at']) - Number(r?.['started']),
      afterLastMs: Number(r?.['finished']) - Number(r?.['last_end']),
    };
  } finally {
    conn.close();
  }
}

/** `mintlify-etl sync --json` as its own process against an emulator process. */
export async function syncProcess(
  emu: EmulatorProcess,
  days: number,
  extra: readonly string[] = [],
  explain?: { concurrency: number; latencyMs: number },
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
    return {
      summary,
      wallMs: r.wallMs,
      maxRssMiB: r.maxRssMiB,
      ...(explain
        ? {
            breakdown: await breakdown(s.db, explain.concurrency, explain.latencyMs, summary.durationMs),
          }
        : {}),
    };
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
        out.push(
          // The visitors stream alone, like benchmarks 1-3 and 5 and the figures before streams
          // (the CLI's default streams are four since then; see the notes).
          await syncProcess(emu, days, ['--concurrency', String(CONCURRENCY), '--streams', 'visitors'], {
            concurrency: CONCURRENCY,
            latencyMs: LATENCY_MS,
          }),
        );
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
      `A ${days}-day backfill of a ${thousands(paths)}-path site: the emulator in its own process (\`node dist/src/cli/main.js emulator --port 0 --days ${days + 1} --paths ${paths} --latency-ms ${LATENCY_MS}\`), the sync as a process (\`node dist/src/cli/main.js sync --from <today-${days}> --db <fresh> --rate-limit 1000000/1h --concurrency ${CONCURRENCY} --streams visitors --json\`), a fresh database each run.`,
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
      `Where the time above the ideal goes, per worker (from each run's \`api_requests\` and \`sync_runs\`; a request's \`duration_ms\` runs from the budget's grant to its body parsed and validated): "over latency" = Σ(duration − ${LATENCY_MS} ms) / ${CONCURRENCY}, the client's and the emulator's time on top of the injected latency; "between requests" = sync time − Σ duration / ${CONCURRENCY}, a worker holding no request (admission, the pager between pages, waiting for the event loop or for the writer, the start and the end), of which "before first" runs from the run's start to the first grant and "after last" from the last response to the run's end; "process" = process wall time − sync time (Node start-up, imports, exit).`,
      '',
      table(
        [
          'run',
          'sync − ideal s',
          'mean request ms',
          'over latency s',
          'between requests s',
          'before first s',
          'after last s',
          'process s',
        ],
        out.map((r, i) => {
          const b = r.breakdown;
          return [
            String(i + 1),
            fixed((r.summary.durationMs - ideal(r)) / 1000, 2),
            fixed(b?.meanRequestMs ?? NaN, 1),
            fixed((b?.overRequestsMs ?? NaN) / 1000, 2),
            fixed((b?.betweenRequestsMs ?? NaN) / 1000, 2),
            fixed((b?.beforeFirstMs ?? NaN) / 1000, 2),
            fixed((b?.afterLastMs ?? NaN) / 1000, 2),
            fixed((r.wallMs - r.summary.durationMs) / 1000, 2),
          ];
        }),
      ),
      '',
      reproduce('e2e'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
