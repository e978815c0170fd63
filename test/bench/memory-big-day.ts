import { scratch } from './context.js';
import { startBigDayApi } from './big-day.js';
import { runCliProcess } from './procs.js';
import { fixed, showSpread, spread, table, thousands, verdict } from './stats.js';

/** Rows of the day issue 19 (item 15) measured: 2,400 pages of 250. */
export const BIG_DAY_ROWS = 600_000;

interface BigDayRun {
  readonly stream: string;
  readonly peakMiB: number;
  readonly seconds: number;
  readonly rows: number;
}

/**
 * Peak RSS of `sync` for ONE day of `rows` page rows (visitors, then views), served by the
 * big-day fixture: the emulator cannot serve a day that large. The day's rows reach the writer
 * as text, page by page, so the peak should not follow the day's size like its rows did.
 */
export async function measureBigDay(rows: number, log: (line: string) => void, times = 1): Promise<string> {
  // Paths of ~57 characters, served at once: the full-speed day of issue 36, item 12.
  const api = await startBigDayApi({ rows, longPaths: true });
  const runs: BigDayRun[] = [];
  try {
    for (let t = 0; t < times; t++)
      for (const stream of ['visitors', 'views']) {
        const s = scratch();
        try {
          const r = await runCliProcess(
            [
              'sync',
              '--db',
              s.db,
              '--from',
              '2026-01-05',
              '--to',
              '2026-01-06',
              '--streams',
              stream,
              '--rate-limit',
              '1000000/1h',
            ],
            {
              MINTLIFY_API_KEY: 'mint_bench_key_123456',
              MINTLIFY_PROJECT_ID: 'bench',
              MINTLIFY_API_URL: api.url,
            },
          );
          if (r.code !== 0)
            throw new Error(`big-day sync of ${stream} exited ${String(r.code)}: ${r.stderr}`);
          runs.push({ stream, peakMiB: r.maxRssMiB ?? NaN, seconds: r.wallMs / 1000, rows });
          log(
            `memory: one ${thousands(rows)}-row day of ${stream}: peak RSS ${fixed(r.maxRssMiB ?? NaN, 0)} MiB`,
          );
        } finally {
          s.remove();
        }
      }
  } finally {
    await api.close();
  }
  const worst = Math.max(...runs.map((r) => r.peakMiB));
  return [
    `One day of ${thousands(rows)} page rows (${thousands(Math.ceil(rows / 250))} pages of 250, paths of ~57 characters) from a scripted server that answers at once (\`test/bench/big-day.ts\`), \`sync --from 2026-01-05 --to 2026-01-06 --streams <stream>\` into a fresh database with \`--rate-limit 1000000/1h\`, under \`/usr/bin/time -f %M\`.`,
    '',
    table(
      ['stream', 'rows', 'peak RSS MiB', 'sync s'],
      ['visitors', 'views'].map((stream) => {
        const of = runs.filter((r) => r.stream === stream);
        return [
          stream,
          thousands(rows),
          showSpread(spread(of.map((r) => r.peakMiB)), 0),
          showSpread(spread(of.map((r) => r.seconds)), 1),
        ];
      }),
    ),
    '',
    `- Worst peak ${fixed(worst, 0)} MiB (target < 300: ${verdict(worst < 300)}).`,
  ].join('\n');
}
