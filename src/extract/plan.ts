import { UsageError } from '../errors.js';
import { addDays, dayRange, type Day } from '../util/day.js';

/** Why a day is in the plan; shown by --dry-run and kept in the summary. */
export type WindowReason =
  'range' | 'initial' | 'new' | 'lookback' | 'gap' | 'deferred' | 'failed' | 'partial';

export interface PlannedWindow {
  readonly projectId: string;
  /** The stream whose window this is (visitors, views, ...). */
  readonly stream: string;
  /** The day; the request is [day, day + 1). */
  readonly day: Day;
  readonly dateTo: Day;
  readonly reason: WindowReason;
  /** The day is today (UTC) or later: its counts are still growing. */
  readonly partial: boolean;
  /**
   * A window of one keyed record instead of a range of days (an assistant thread): its id, and
   * the version it is fetched for (the thread's turn count). `day` is then only its place in the
   * plan's order.
   */
  readonly item?: WindowItem;
}

export interface WindowItem {
  readonly id: string;
  readonly version: number;
}

export interface ProjectState {
  /** Days with a loaded window, ascending. */
  readonly loadedDays: readonly Day[];
  /** Loaded days flagged partial (re-fetched by every run until complete). */
  readonly partialDays: readonly Day[];
  /** Days an earlier run left unloaded (budget, limits, a kill) and that are still not loaded. */
  readonly deferredDays: readonly Day[];
  /** Days whose last attempt failed and that hold no data. */
  readonly failedDays?: readonly Day[];
  /**
   * When each loaded day was last fetched (epoch ms). Without it every loaded day in the
   * lookback range counts as unsettled.
   */
  readonly fetchedAt?: ReadonlyMap<Day, number>;
  /** Loaded days cut short by a page cap: never settled, whenever they were fetched. */
  readonly truncatedDays?: readonly Day[];
  /** Range streams: each loaded window's end (exclusive), by window start. */
  readonly windowEnds?: ReadonlyMap<Day, Day>;
  /** Loaded windows with no rows though the API counted some (periods fetched without pages). */
  readonly rowlessDays?: readonly Day[];
}

export interface PlanOptions {
  readonly today: Day;
  readonly from?: Day | undefined;
  readonly to?: Day | undefined;
  readonly lookback: number;
  readonly includeToday: boolean;
  /** Days to load on an empty database when no --from is given. */
  readonly initialDays?: number;
  /** Fetch settled loaded days again (--refresh): the service has re-classified traffic before. */
  readonly refresh?: boolean;
  /** --period-pages: a period loaded without its pages is not final. */
  readonly periodPages?: boolean;
  /** A stream's own lookback in days where it differs from `lookback` (feedback: --feedback-lookback). */
  readonly lookbackByStream?: Readonly<Record<string, number>>;
}

/** A day the plan leaves out on purpose, and why (--dry-run shows them). */
export interface SkippedWindow {
  readonly projectId: string;
  readonly stream: string;
  readonly day: Day;
  readonly reason: 'settled';
  /** When it was last fetched (epoch ms). */
  readonly fetchedAt: number;
}

export interface ProjectPlan {
  readonly projectId: string;
  readonly from: Day;
  readonly to: Day;
  readonly windows: readonly PlannedWindow[];
  readonly skipped: readonly SkippedWindow[];
}

/**
 * A loaded day fetched `lookback` or more days after it ended holds its final counts: the same
 * assumption that makes the lookback N days long says fetching it again cannot change it.
 */
export function isSettled(day: Day, fetchedAt: number | undefined, lookback: number): boolean {
  return fetchedAt !== undefined && fetchedAt >= Date.parse(`${addDays(day, 1 + lookback)}T00:00:00Z`);
}

/**
 * Turns flags and the database's state into one window per UTC day. Per-day windows only:
 * unique visitors are not additive, so a multi-day request could never be split back into days.
 */
export function planProject(
  projectId: string,
  state: ProjectState,
  opts: PlanOptions,
  stream = 'visitors',
): ProjectPlan {
  const limit = opts.includeToday ? addDays(opts.today, 1) : opts.today;
  if (opts.to !== undefined && opts.to > addDays(opts.today, 1)) {
    throw new UsageError(
      `--to ${opts.to} is in the future: the newest day with data is today (${opts.today}); --to is exclusive`,
      { to: opts.to, today: opts.today },
    );
  }
  // The current day is never loaded by accident: its counts are still growing.
  const to = opts.to === undefined || opts.to > limit ? limit : opts.to;

  if (opts.from !== undefined) {
    if (opts.from >= to) {
      const why =
        opts.to === undefined || opts.to > limit
          ? ` (today, ${opts.today}, is excluded unless --include-today)`
          : '';
      throw new UsageError(
        `--from ${opts.from} must be before --to ${to}${why}: the range is [from, to), --to exclusive`,
        { from: opts.from, to },
      );
    }
    const skipped: SkippedWindow[] = [];
    const days = dayRange(opts.from, to).filter((d) => {
      const settled = settledFetch(state, d, opts);
      if (settled !== undefined)
        skipped.push({ projectId, stream, day: d, reason: 'settled', fetchedAt: settled });
      return settled === undefined;
    });
    return {
      projectId,
      from: opts.from,
      to,
      windows: days.map((d) => window(projectId, stream, d, 'range', opts.today)),
      skipped,
    };
  }

  // A day after today was stored under a clock that was ahead (the service has no such day): it
  // neither extends the loaded range nor makes the days up to it gaps (`prune` removes it).
  const loaded = notAfter(state.loadedDays, opts.today);
  const chosen = new Map<Day, WindowReason>();
  const add = (day: Day, reason: WindowReason): void => {
    if (day < to && !chosen.has(day)) chosen.set(day, reason);
  };

  const skipped: SkippedWindow[] = [];
  const last = loaded.at(-1);
  const first = loaded[0];
  if (last === undefined || first === undefined) {
    for (const d of dayRange(addDays(to, -(opts.initialDays ?? 30)), to)) add(d, 'initial');
  } else {
    // Lookback re-fetches loaded days for late data; a day before the first loaded one was
    // never asked for, so fetching it would spend a request nobody wanted. A day fetched
    // `lookback` days after it ended is settled: a backfill that a budget spread over several
    // runs must not pay for its newest days again each time it continues.
    const back = addDays(last, 1 - opts.lookback);
    const start = back < first ? first : back;
    for (const d of dayRange(start, addDays(last, 1))) {
      const settled = settledFetch(state, d, opts);
      if (settled === undefined) add(d, 'lookback');
      else skipped.push({ projectId, stream, day: d, reason: 'settled', fetchedAt: settled });
    }
    for (const d of dayRange(addDays(last, 1), to)) add(d, 'new');
    const have = new Set(loaded);
    for (const d of dayRange(first, last)) if (!have.has(d)) add(d, 'gap');
  }
  for (const d of state.deferredDays) add(d, 'deferred');
  for (const d of state.failedDays ?? []) add(d, 'failed');
  for (const d of state.partialDays) add(d, 'partial');

  const days = [...chosen.keys()].sort();
  const windows = days.map((day) => window(projectId, stream, day, chosen.get(day) ?? 'range', opts.today));
  return { projectId, from: days[0] ?? to, to, windows, skipped };
}

/** The days up to `today`: a loaded day after it can only come from a clock that was ahead. */
export function notAfter(days: readonly Day[], today: Day): readonly Day[] {
  const last = days.at(-1);
  return last === undefined || last <= today ? days : days.filter((d) => d <= today);
}

/** When a loaded, complete day was fetched if it is settled; undefined if it must be fetched. */
function settledFetch(state: ProjectState, day: Day, opts: PlanOptions): number | undefined {
  if (opts.refresh === true || state.partialDays.includes(day)) return undefined;
  // A truncated day holds part of the API's rows: fetching it again (with a larger cap) can change it.
  if (state.truncatedDays?.includes(day)) return undefined;
  const fetched = state.fetchedAt?.get(day);
  return isSettled(day, fetched, opts.lookback) ? fetched : undefined;
}

function window(
  projectId: string,
  stream: string,
  day: Day,
  reason: WindowReason,
  today: Day,
): PlannedWindow {
  return { projectId, stream, day, dateTo: addDays(day, 1), reason, partial: day >= today };
}

/**
 * The window's name in run records (sync_runs.deferred_days) and summaries:
 * `project:day` for visitors (as before streams), `project:stream:day` for the others.
 */
export function windowKey(w: {
  projectId: string;
  stream: string;
  day: Day;
  item?: WindowItem | undefined;
}): string {
  if (w.item !== undefined) return `${w.projectId}:${w.stream}:${w.item.id}`;
  return w.stream === 'visitors' ? `${w.projectId}:${w.day}` : `${w.projectId}:${w.stream}:${w.day}`;
}

/**
 * The order a run spends its requests in: newest day first (a range window by its last day), every project and stream of a day
 * together, so that a run cut short by the budget (a first run of a big site under 100 requests
 * an hour) leaves the most recent days complete in every stream, which is what a user looks at
 * first. The days it did not reach are recorded as deferred and planned by the next run, so
 * nothing relies on the loaded days being a contiguous prefix.
 */
export function mergePlans(
  plans: readonly ProjectPlan[],
  /** Streams in the order a day's windows go (the registry's: visitors first); others after, by name. */
  streamOrder: readonly string[] = [],
): PlannedWindow[] {
  const rank = (s: string): number => {
    const i = streamOrder.indexOf(s);
    return i < 0 ? streamOrder.length : i;
  };
  return plans
    .flatMap((p) => p.windows)
    .sort(
      (a, b) =>
        // A range window is as new as the last day it holds: the current month of feedback
        // goes with yesterday's day windows, not after every day since the 1st.
        compare(b.dateTo, a.dateTo) ||
        compare(b.day, a.day) ||
        compare(a.projectId, b.projectId) ||
        rank(a.stream) - rank(b.stream) ||
        compare(a.stream, b.stream),
    );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
