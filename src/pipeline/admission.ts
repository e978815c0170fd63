import { roomOf, type RunBudget, type RunLimits, type StopReason } from './limits.js';

/** Pages per window are a property of a project's stream: admission and estimates key them so. */
export function admissionKey(projectId: string, stream: string): string {
  return `${projectId}\u0000${stream}`;
}

/** A day being fetched: the pages its project's history expects, and those fetched so far. */
export interface Flight {
  readonly expected: number;
  pages: number;
}

/**
 * Decides when a day may start. A day cut off halfway (by --max-requests, --max-duration, or a
 * budget that cannot serve it within --max-wait) is thrown away with the requests it spent, so
 * a day starts only when its expected pages fit beside what the days in flight still need;
 * otherwise it waits for one of them to finish, and with none in flight it is left for the
 * next run. Before this, four big days in flight shared the hourly budget page by page, none
 * finished, and every run threw all of them away.
 */
export class DayAdmission {
  readonly #budget: RunBudget;
  readonly #limits: RunLimits;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #history: ReadonlyMap<string, number | undefined>;
  readonly #inFlight = new Set<Flight>();
  /** Pages per day fetched in this run, for a project without history. */
  readonly #seen = new Map<string, { pages: number; days: number }>();
  #waiters: (() => void)[] = [];

  constructor(opts: {
    budget: RunBudget;
    limits: RunLimits;
    maxWaitMs: number;
    now: () => number;
    /** Average pages per day from earlier runs, by project. */
    history: ReadonlyMap<string, number | undefined>;
  }) {
    this.#budget = opts.budget;
    this.#limits = opts.limits;
    this.#maxWaitMs = opts.maxWaitMs;
    this.#now = opts.now;
    this.#history = opts.history;
  }

  /** Pages a day of this project is expected to take: history, else this run's average, else 1. */
  expectedPages(projectId: string): number {
    const seen = this.#seen.get(projectId);
    const avg = this.#history.get(projectId) ?? (seen ? seen.pages / seen.days : 1);
    return Math.max(1, Math.round(avg));
  }

  /**
   * Waits until a day of `projectId` fits, and returns its flight; or returns the bound that
   * leaves no room when nothing is in flight, or `undefined` when `stopping()` says
   * the run is stopping meanwhile.
   */
  async admit(
    projectId: string,
    stopping: () => boolean,
  ): Promise<Flight | { refused: StopReason } | undefined> {
    const expected = this.expectedPages(projectId);
    for (;;) {
      const room = roomOf(this.#budget, this.#limits, this.#maxWaitMs, this.#now());
      if (this.stillNeeded() + expected <= room.requests) break;
      if (this.#inFlight.size === 0) return { refused: room.reason };
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
      if (stopping()) return undefined;
    }
    const flight: Flight = { expected, pages: 0 };
    this.#inFlight.add(flight);
    return flight;
  }

  /** The day was fetched (or failed): its pages count for the project's average when it was fetched. */
  finish(flight: Flight, projectId: string, fetchedPages?: number): void {
    this.#inFlight.delete(flight);
    if (fetchedPages !== undefined) {
      const seen = this.#seen.get(projectId) ?? { pages: 0, days: 0 };
      this.#seen.set(projectId, { pages: seen.pages + fetchedPages, days: seen.days + 1 });
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Pages the windows in flight are still expected to take. */
  stillNeeded(): number {
    let n = 0;
    for (const f of this.#inFlight) n += Math.max(0, f.expected - f.pages);
    return n;
  }
}
