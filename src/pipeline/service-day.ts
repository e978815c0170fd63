import type { PlannedWindow } from '../extract/plan.js';
import { addDays, todayUtc, type Day } from '../util/day.js';

/**
 * The service's own date, from the Date header of the run's first answer. The plan is made with
 * this machine's clock before any request; a clock that is ahead would plan days the service has
 * not lived yet (one run at 2100-01-01 stored 24 days dated 2099, and every later run planned the
 * 27,000 days between). Once the service has answered, no window after its today is fetched or
 * loaded: the windows not started are left out, a window already fetched is not loaded.
 */
export class ServiceDay {
  readonly #localToday: Day;
  readonly #includeToday: boolean;
  #today: Day | undefined;
  #left = 0;

  constructor(localToday: Day, includeToday: boolean) {
    this.#localToday = localToday;
    this.#includeToday = includeToday;
  }

  /** An answer's Date header; the first one sets the service's day. Returns true when that is news. */
  observe(serverDateMs: number): boolean {
    if (this.#today !== undefined) return false;
    this.#today = todayUtc(serverDateMs);
    return this.#today < this.#localToday;
  }

  /** The service's today when its date is known and earlier than this machine's. */
  get behindBy(): { service: Day; local: Day } | undefined {
    const t = this.#today;
    return t !== undefined && t < this.#localToday ? { service: t, local: this.#localToday } : undefined;
  }

  /** Windows left out because they lie after the service's date. */
  get left(): number {
    return this.#left;
  }

  /**
   * The window as the service's date allows it: undefined when it reaches past the last day the
   * run may load (today with --include-today, else yesterday); flagged partial when it holds the
   * service's today. An item window (a thread) has no day of its own and always passes.
   */
  admit(w: PlannedWindow): PlannedWindow | undefined {
    const today = this.behindBy?.service;
    if (today === undefined || w.item !== undefined) return w;
    const limit = this.#includeToday ? addDays(today, 1) : today;
    if (w.dateTo > limit) {
      this.#left++;
      return undefined;
    }
    return w.dateTo > today && !w.partial ? { ...w, partial: true } : w;
  }
}

/** The one line a run says when the service's date is earlier than this machine's. */
export function clockAheadLine(service: Day, local: Day, left: number): string {
  const last = addDays(service, -1);
  return `this machine's clock says ${local} but the service's says ${service}: the clock is ahead, so ${left} window(s) after ${last} were left out (nothing after the service's date is fetched or loaded); set the clock right (NTP, e.g. timedatectl set-ntp true)`;
}
