import type { Destination } from '../load/destination.js';
import { addDays, type Day } from '../util/day.js';
import type { StreamDefinition } from '../streams/index.js';

/**
 * Removing days that should not be there: rows a run stored under a clock that was ahead (days
 * the service has not lived yet), with their ledger rows, so that reports, `status` and the next
 * plans no longer see them. Portable SQL through the destination's session: the same on DuckDB
 * and PostgreSQL, in one transaction (all or nothing).
 */

/** How each table of a stream names its day: a DATE column, or an event time (TIMESTAMPTZ). */
const DAY_COLUMNS: Readonly<Record<string, { readonly column: string; readonly time: boolean }>> = {
  site_daily: { column: 'day', time: false },
  page_daily: { column: 'day', time: false },
  site_views_daily: { column: 'day', time: false },
  page_views_daily: { column: 'day', time: false },
  search_daily: { column: 'day', time: false },
  search_totals_daily: { column: 'day', time: false },
  feedback_page_daily: { column: 'day', time: false },
  assistant_callers_daily: { column: 'day', time: false },
  site_weekly: { column: 'period_start', time: false },
  page_weekly: { column: 'period_start', time: false },
  site_monthly: { column: 'period_start', time: false },
  page_monthly: { column: 'period_start', time: false },
  feedback: { column: 'created_at', time: true },
  assistant_turns: { column: 'ts', time: true },
  assistant_messages: { column: 'created_at', time: true },
  assistant_threads: { column: 'created_at', time: true },
};

export interface PruneOptions {
  readonly projects: readonly string[];
  readonly streams: readonly StreamDefinition[];
  /** The last day kept: every day after it goes. */
  readonly after: Day;
  /** false: count only (the dry run); true: delete. */
  readonly apply: boolean;
}

/** Rows after the day, per table (the window ledger and request ledger included). */
export interface PruneCount {
  readonly table: string;
  readonly rows: number;
}

interface Target {
  readonly table: string;
  /** The WHERE clause after `project_id = $1` (`$2` is the first instant or day removed). */
  readonly where: string;
  readonly param: string;
  readonly stream?: string;
}

function targets(opts: PruneOptions): Target[] {
  const firstGone = addDays(opts.after, 1);
  const at = `${firstGone}T00:00:00.000Z`;
  const out: Target[] = [];
  for (const s of opts.streams) {
    for (const table of s.tables) {
      const c = DAY_COLUMNS[table];
      if (c === undefined) continue;
      out.push(
        c.time
          ? { table, where: `${c.column} >= $2::TIMESTAMPTZ`, param: at }
          : { table, where: `${c.column} >= $2::DATE`, param: firstGone },
      );
    }
    // Every window that reaches past the day, not only those that start after it: a month or week
    // that straddles it lost some rows, so it must be fetched again, not stay "loaded".
    out.push({
      table: 'sync_windows',
      where: `window_end > $2::DATE AND stream = $3`,
      param: firstGone,
      stream: s.name,
    });
  }
  // Request times from the same clock: left in, they would count against the budget for ever.
  out.push({ table: 'api_requests', where: `requested_at >= $2::TIMESTAMPTZ`, param: at });
  return out;
}

/** Counts (and with `apply`, deletes) every row after `after` of the projects and streams. */
export async function pruneAfter(dest: Destination, opts: PruneOptions): Promise<PruneCount[]> {
  const db = dest.session;
  const totals = new Map<string, number>();
  await db.transaction(async () => {
    for (const projectId of opts.projects) {
      for (const t of targets(opts)) {
        const params = [projectId, t.param, ...(t.stream !== undefined ? [t.stream] : [])];
        const where = `project_id = $1 AND ${t.where}`;
        const n = opts.apply
          ? await db.run(`DELETE FROM ${t.table} WHERE ${where}`, params)
          : Number(
              (await db.rows(`SELECT count(*) AS n FROM ${t.table} WHERE ${where}`, params))[0]?.['n'] ?? 0,
            );
        totals.set(t.table, (totals.get(t.table) ?? 0) + n);
      }
    }
  });
  return [...totals].map(([table, rows]) => ({ table, rows })).filter((c) => c.rows > 0);
}
