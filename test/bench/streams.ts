import { startEmulator, type Dataset } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/database.js';
import { queryRows } from '../../src/load/sql.js';
import { runSync } from '../../src/pipeline/sync.js';
import { DEFAULT_STREAMS, parseStreams } from '../../src/streams/index.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import {
  reproduce,
  scratch,
  syncOptions,
  type Bench,
  type BenchContext,
  type BenchResult,
} from './context.js';
import { fixed, table, thousands, verdict } from './stats.js';

/** The fewest requests each stream can load these days with: its rows over its page size, at least one. */
function minimumByEndpoint(ds: Dataset, days: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  const add = (k: string, n: number): void => void m.set(k, (m.get(k) ?? 0) + n);
  for (const d of days) {
    add('visitors', Math.max(1, Math.ceil(ds.pages(d).length / 250)));
    add('views', Math.max(1, Math.ceil(ds.views(d).views.length / 250)));
    add('searches', Math.max(1, Math.ceil(ds.searches(d).searches.length / 100)));
    add('assistant.caller-stats', 1);
    add('feedback.by-page', 1);
  }
  return m;
}

async function query(db: string, sql: string): Promise<Record<string, unknown>[]> {
  const conn = await openDatabase(db, { readOnly: true });
  try {
    return await queryRows(conn.connection, sql);
  } finally {
    conn.close();
  }
}

/** A first run (no --from: the last 30 days) of a site with ~1,000 pages a day, under --max-requests 100. */
async function firstHundred(): Promise<{ rows: string[][]; ok: boolean; requests: number }> {
  const emu = await startEmulator({ seed: 21, days: 40, paths: 1_000 });
  const s = scratch();
  try {
    const summary = await runSync(
      syncOptions(emu, s.db, { streams: parseStreams(DEFAULT_STREAMS.join(',')), maxRequests: 100 }),
    );
    const week = dayRange(addDays(todayUtc(), -7), todayUtc());
    const rows: string[][] = [];
    let ok = true;
    for (const stream of DEFAULT_STREAMS) {
      const loaded = (
        await query(
          s.db,
          `SELECT window_start::VARCHAR AS day FROM sync_windows WHERE stream = '${stream}' AND status = 'loaded' AND NOT truncated`,
        )
      ).map((r) => String(r['day']));
      const complete = week.filter((d) => loaded.includes(d)).length;
      ok &&= complete === 7;
      rows.push([stream, String(loaded.length), `${complete}/7`]);
    }
    return { rows, ok, requests: summary.requests };
  } finally {
    await emu.close();
    s.remove();
  }
}

/** A clean backfill of every stream: requests per endpoint against the minimum. */
async function efficiency(days: number): Promise<{ rows: string[][]; ok: boolean }> {
  const emu = await startEmulator({ seed: 1, days: days + 1, paths: 2_000 });
  const s = scratch();
  try {
    const range = dayRange(addDays(todayUtc(), -days), todayUtc());
    await runSync(
      syncOptions(emu, s.db, {
        streams: parseStreams('visitors,views,searches,caller_stats,feedback_by_page'),
        from: range[0],
      }),
    );
    const spent = new Map(
      (await query(s.db, 'SELECT endpoint, count(*)::INT AS n FROM api_requests GROUP BY endpoint')).map(
        (r) => [String(r['endpoint']), Number(r['n'])],
      ),
    );
    const minimum = minimumByEndpoint(emu.dataset, range);
    let ok = true;
    const rows = [...minimum].map(([endpoint, min]) => {
      const n = spent.get(endpoint) ?? 0;
      ok &&= n === min;
      return [endpoint, thousands(min), thousands(n), fixed(n / min, 3)];
    });
    return { rows, ok };
  } finally {
    await emu.close();
    s.remove();
  }
}

export const streamsBench: Bench = {
  id: 'streams',
  title: '6. Streams: the first 100 requests, and requests per stream',
  async run(ctx: BenchContext): Promise<BenchResult> {
    ctx.log('streams: a first run of a 1,000-page site under --max-requests 100');
    const first = await firstHundred();
    const days = ctx.quick ? 30 : 90;
    ctx.log(`streams: a clean ${days}-day backfill of every stream, 2,000 paths`);
    const eff = await efficiency(days);
    const markdown = [
      'A first run (no `--from`: the last 30 days) of a site with about 1,000 pages a day (emulator seed 21), default streams, `--max-requests 100`. The plan goes newest day first with every stream of a day together, so the budget buys the latest days of every stream.',
      '',
      table(['stream', 'windows loaded', 'last 7 days complete'], first.rows),
      '',
      `- ${first.requests} requests; the last 7 days complete in every default stream: **${verdict(first.ok)}**.`,
      '',
      `A clean ${days}-day backfill of every stream (default ones and feedback_by_page) of a 2,000-path site (emulator seed 1). Minimum per endpoint: visitors and views max(1, ceil(rows/250)) a day, searches max(1, ceil(terms/100)), caller stats and feedback by page 1.`,
      '',
      table(['endpoint', 'minimum', 'requests', 'requests / minimum'], eff.rows),
      '',
      `- Every stream at exactly its minimum: **${verdict(eff.ok)}**.`,
      '',
      reproduce('streams'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
