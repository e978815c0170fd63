import type { SqlSession } from '../load/session.js';
import { daysBetween } from '../util/day.js';

/**
 * A first sync (or `sync --from` far back) under the budget loads the newest days of every stream
 * first and defers the older ones to the next runs: getting-started calls that normal. Such days
 * are the backfill: deferred days of a stream OLDER than anything the stream has loaded. A day
 * deferred inside or after the loaded history is a hole the nightly run could not fill, and a
 * stream with nothing loaded at all is not being backfilled (a first run loads the newest day of
 * every stream): both stay their own "deferred <stream>" alert.
 */
export interface Backfill {
  /** The oldest day the backfill still has to load: the alert's dedup key (once per backfill). */
  readonly from: string;
  /** The streams with backfill days, in the order the run listed them. */
  readonly streams: readonly string[];
  readonly fields: {
    readonly from: string;
    /** The day evaluated: the backfill covers [from, to]. */
    readonly to: string;
    readonly days: number;
    readonly loaded: number;
    /** Distinct days some stream still has to load. */
    readonly left: number;
  };
}

/** Splits the deferred days of each stream into the backfill and the rest. */
export async function splitBackfill(
  session: SqlSession,
  projectId: string,
  day: string,
  deferred: ReadonlyMap<string, string[]>,
): Promise<{ backfill: Backfill | null; deferred: Map<string, string[]> }> {
  const first = await firstLoaded(session, projectId);
  const rest = new Map<string, string[]>();
  const left = new Set<string>();
  const streams: string[] = [];
  for (const [stream, days] of deferred) {
    const start = first.get(stream);
    const older = start === undefined ? [] : days.filter((d) => d < start);
    const other = days.filter((d) => !older.includes(d));
    if (older.length > 0) streams.push(stream);
    for (const d of older) left.add(d);
    if (other.length > 0) rest.set(stream, other);
  }
  if (left.size === 0) return { backfill: null, deferred: rest };
  const from = [...left].sort()[0] ?? day;
  const days = daysBetween(from, day) + 1;
  return {
    backfill: { from, streams, fields: { from, to: day, days, loaded: days - left.size, left: left.size } },
    deferred: rest,
  };
}

/** The first day each stream has loaded (a range window counts from its start). */
async function firstLoaded(session: SqlSession, projectId: string): Promise<Map<string, string>> {
  const rows = await session.rows(
    `SELECT stream, min(window_start) AS first FROM sync_windows
     WHERE project_id = $1::VARCHAR AND status = 'loaded' GROUP BY stream`,
    [projectId],
  );
  return new Map(rows.map((r) => [String(r['stream']), String(r['first'])]));
}
