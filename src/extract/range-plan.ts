import { addDays, dayToMs, msToDay, type Day } from '../util/day.js';
import {
  isSettled,
  notAfter,
  type PlanOptions,
  type PlannedWindow,
  type ProjectPlan,
  type ProjectState,
  type SkippedWindow,
  type WindowReason,
} from './plan.js';

/**
 * A fixed calendar grid of range windows. Windows of a range stream always start on a cell's
 * first day, so every event time belongs to exactly one window and sync_windows never holds two
 * overlapping ranges of a stream, whatever --from/--to a run was given.
 */
export interface Grid {
  readonly name: 'week' | 'month';
  /** The first day of the cell that holds `day`. */
  start(day: Day): Day;
  /** The first day after the cell that starts on `start`. */
  next(start: Day): Day;
}

/** ISO weeks, [Monday, next Monday). */
export const ISO_WEEKS: Grid = {
  name: 'week',
  start(day) {
    const weekday = (new Date(dayToMs(day)).getUTCDay() + 6) % 7; // Monday = 0
    return addDays(day, -weekday);
  },
  next: (start) => addDays(start, 7),
};

/** Calendar months, [1st, next 1st). */
export const MONTHS: Grid = {
  name: 'month',
  start: (day) => `${day.slice(0, 7)}-01`,
  next(start) {
    const d = new Date(dayToMs(start));
    return msToDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  },
};

export interface RangePlanSpec {
  readonly stream: string;
  readonly grid: Grid;
  /**
   * `events`: a cell not over yet is fetched up to its last complete day (the days it holds are
   * final but for late events, and the next run extends it). `periods`: a period's figure is only
   * meaningful for the whole period, so a period is fetched once it is complete and settled, and
   * the current one (partial) only with --include-today.
   */
  readonly kind: 'events' | 'periods';
  /** Days after a window's end before a fetch of it is final (default: --lookback). */
  readonly lookback?: number;
  /**
   * --refresh without --from re-reads every loaded window, not only the recent ones (feedback:
   * statuses change at any age). Otherwise it re-reads those within the lookback of the newest,
   * as for days: a whole history of assistant weeks would cost more than an hour's budget.
   */
  readonly refreshAll?: boolean;
}

interface Cell {
  readonly start: Day;
  readonly end: Day;
}

/**
 * The windows of a range stream for one project: one per grid cell, with the day rules of
 * `planProject` (initial 30 days, lookback, gaps, deferred, failed, partial, settled) applied to
 * cells. A loaded cell is fetched again until a fetch of the whole cell is settled (made
 * `lookback` days after its end); a cell loaded only up to some day (the week was not over) is
 * extended by the next run.
 *
 * --from/--to only choose which cells are read: a chosen cell is read whole, up to the last
 * complete day when it is still running (today with --include-today), never cut at --to. A read
 * replaces what the cell holds, so a cell cut at --to would drop the rows after --to that an
 * earlier, wider read loaded, and the ledger would call a part of the cell its whole. The price
 * is the rest of the cell: a month of feedback is a page or two, a week of assistant turns one.
 */
export function planRanges(
  projectId: string,
  state: ProjectState,
  opts: PlanOptions,
  spec: RangePlanSpec,
): ProjectPlan {
  const lookback = spec.lookback ?? opts.lookback;
  const dayLimit = opts.includeToday ? addDays(opts.today, 1) : opts.today;
  /** The cells starting before this are chosen; each is still read whole (see `rangeWindow`). */
  const to = opts.to === undefined || opts.to > dayLimit ? dayLimit : opts.to;
  const skipped: SkippedWindow[] = [];
  const chosen = new Map<Day, WindowReason>();
  const cellAt = (start: Day): Cell => ({ start, end: spec.grid.next(start) });

  const loadedEnd = (start: Day): Day | undefined =>
    state.loadedDays.includes(start) ? (state.windowEnds?.get(start) ?? spec.grid.next(start)) : undefined;
  /** When the whole cell was fetched if that fetch is final; undefined if it must be fetched. */
  const settledAt = (c: Cell): number | undefined => {
    if (opts.refresh === true || state.partialDays.includes(c.start)) return undefined;
    if (state.truncatedDays?.includes(c.start) || loadedEnd(c.start) !== c.end) return undefined;
    // --period-pages asks for the pages of a period that was loaded without them.
    if (spec.kind === 'periods' && opts.periodPages === true && state.rowlessDays?.includes(c.start))
      return undefined;
    const fetched = state.fetchedAt?.get(c.start);
    return isSettled(addDays(c.end, -1), fetched, lookback) ? fetched : undefined;
  };
  /**
   * A loaded cell older than the lookback that the incremental rule does not go back for, as for
   * days: one cut short by a page cap (every run would pay for it again, with the same cap), or
   * one --refresh would re-read though its last fetch is final (unless `refreshAll`).
   */
  const beyondReach = (start: Day): boolean => {
    if (state.truncatedDays?.includes(start)) return true;
    const end = spec.grid.next(start);
    const final = isSettled(addDays(end, -1), state.fetchedAt?.get(start), lookback);
    return opts.refresh === true && spec.refreshAll !== true && final;
  };
  /** Whether a fetch of the cell now is allowed: periods wait until complete and settled. */
  const fetchable = (c: Cell): boolean => {
    if (c.start >= to) return false;
    if (spec.kind === 'events') return true;
    return opts.includeToday || addDays(c.end, lookback) <= opts.today;
  };
  /** `quiet`: a settled cell is left out without a line in --dry-run's skipped list. */
  const add = (c: Cell, reason: WindowReason, quiet = false): void => {
    if (chosen.has(c.start) || !fetchable(c)) return;
    const settled = settledAt(c);
    if (settled !== undefined) {
      if (!quiet)
        skipped.push({ projectId, stream: spec.stream, day: c.start, reason: 'settled', fetchedAt: settled });
      return;
    }
    chosen.set(c.start, reason);
  };
  const cellsFrom = (from: Day): Cell[] => {
    const out: Cell[] = [];
    for (let s = spec.grid.start(from); s < to; s = spec.grid.next(s)) out.push(cellAt(s));
    return out;
  };

  if (opts.from !== undefined) {
    for (const c of cellsFrom(opts.from)) add(c, 'range');
  } else {
    // A cell after today was stored under a clock that was ahead: see planProject.
    const loaded = notAfter([...state.loadedDays].sort(), opts.today);
    const first = loaded[0];
    const last = loaded.at(-1);
    if (first === undefined || last === undefined) {
      for (const c of cellsFrom(addDays(to, -(opts.initialDays ?? 30)))) add(c, 'initial');
    } else {
      // Every loaded cell whose last fetch is not final yet; only those near the newest are
      // listed as skipped when settled (as the day plan lists its lookback days), not years of them.
      const listedFrom = addDays(loadedEnd(last) ?? last, -lookback);
      for (const s of loaded) {
        const c = cellAt(s);
        const open = loadedEnd(s) !== c.end || state.partialDays.includes(s);
        if (c.end <= listedFrom && !open && beyondReach(s)) continue;
        add(c, open ? 'partial' : 'lookback', c.end <= listedFrom);
      }
      for (const c of cellsFrom(spec.grid.next(last))) add(c, 'new');
      const have = new Set(loaded);
      for (const c of cellsFrom(first)) if (c.start < last && !have.has(c.start)) add(c, 'gap');
    }
    for (const d of state.deferredDays) add(cellAt(spec.grid.start(d)), 'deferred');
    for (const d of state.failedDays ?? []) add(cellAt(spec.grid.start(d)), 'failed');
  }
  // Settled cells the rules above did not reach are not worth listing one by one.
  const windows = [...chosen.keys()].sort().map((start) => {
    const c = cellAt(start);
    return rangeWindow(projectId, spec, c, chosen.get(start) ?? 'range', dayLimit, opts.today);
  });
  // The plan reaches as far as the cells it reads, which may be past --to.
  const end = windows.reduce((e, w) => (w.dateTo > e ? w.dateTo : e), to);
  return { projectId, from: windows[0]?.day ?? to, to: end, windows, skipped };
}

function rangeWindow(
  projectId: string,
  spec: RangePlanSpec,
  c: Cell,
  reason: WindowReason,
  dayLimit: Day,
  today: Day,
): PlannedWindow {
  // Events stop at the last day the run may load (today excluded unless --include-today); a
  // period is asked for whole, or up to tomorrow while it is still running (the service counts
  // what it has seen so far).
  const limit = spec.kind === 'events' ? dayLimit : addDays(today, 1);
  const dateTo = c.end < limit ? c.end : limit;
  return { projectId, stream: spec.stream, day: c.start, dateTo, reason, partial: dateTo > today };
}
