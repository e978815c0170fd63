import { startEmulator, type Dataset } from '../../src/emulator/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
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

interface LoadedWindow {
  readonly stream: string;
  readonly start: string;
  readonly end: string;
}

/**
 * The fewest requests each stream can load these days with: its rows over its page size, at
 * least one, per day for the day streams and per loaded window for the ranges (feedback 100 a
 * page, assistant 1,000) and the periods (one request each).
 */
function minimumByEndpoint(
  ds: Dataset,
  days: readonly string[],
  ranges: readonly LoadedWindow[],
): Map<string, number> {
  const m = new Map<string, number>();
  const add = (k: string, n: number): void => void m.set(k, (m.get(k) ?? 0) + n);
  for (const w of ranges) {
    if (w.stream === 'feedback')
      add('feedback', Math.max(1, Math.ceil(ds.feedbackEvents(w.start, w.end).length / 100)));
    else if (w.stream === 'assistant')
      add('assistant', Math.max(1, Math.ceil(ds.assistantTurns(w.start, w.end).length / 1000)));
    else add(`visitors (${w.stream})`, 1);
  }
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
      // A day is complete when a loaded window covers it: one day, or a range of days.
      const loaded = (
        await query(
          s.db,
          `SELECT window_start::VARCHAR AS s, window_end::VARCHAR AS e FROM sync_windows WHERE stream = '${stream}' AND status = 'loaded' AND NOT truncated`,
        )
      ).map((r) => [String(r['s']), String(r['e'])] as const);
      const complete = week.filter((d) => loaded.some(([a, b]) => a <= d && d < b)).length;
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
        streams: parseStreams(
          'visitors,views,searches,feedback,assistant,caller_stats,feedback_by_page,visitors_weekly,visitors_monthly',
        ),
        from: range[0],
      }),
    );
    const spent = new Map(
      (await query(s.db, 'SELECT endpoint, count(*)::INT AS n FROM api_requests GROUP BY endpoint')).map(
        (r) => [String(r['endpoint']), Number(r['n'])],
      ),
    );
    const ranges = (
      await query(
        s.db,
        `SELECT stream, window_start::VARCHAR AS s, window_end::VARCHAR AS e FROM sync_windows
         WHERE stream IN ('feedback', 'assistant', 'visitors_weekly', 'visitors_monthly') AND status = 'loaded'`,
      )
    ).map((r) => ({ stream: String(r['stream']), start: String(r['s']), end: String(r['e']) }));
    const minimum = minimumByEndpoint(emu.dataset, range, ranges);
    // The period grains spend on the visitors endpoint: their minimum joins the visitors row.
    for (const [k, n] of [...minimum]) {
      if (!k.startsWith('visitors (')) continue;
      minimum.delete(k);
      minimum.set('visitors', (minimum.get('visitors') ?? 0) + n);
    }
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
      `A clean ${days}-day backfill of every stream but assistant_threads (one request a thread by construction) of a 2,000-path site (emulator seed 1). Minimum per endpoint: visitors and views max(1, ceil(rows/250)) a day (visitors plus one request a complete week and month for visitors_weekly and visitors_monthly), searches max(1, ceil(terms/100)), caller stats and feedback by page 1 a day, feedback max(1, ceil(entries/100)) a loaded month, assistant max(1, ceil(turns/1000)) a loaded week.`,
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
