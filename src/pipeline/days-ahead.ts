import type { Day } from '../util/day.js';

/**
 * Loaded windows dated after today: the service has no such days, so a run stored them while this
 * machine's clock was ahead. The plans leave them out (plan.ts, `notAfter`); this says so once
 * per run and names the command that removes them.
 */
export class DaysAhead {
  readonly #today: Day;
  #count = 0;
  #first: Day | undefined;
  readonly #streams = new Set<string>();

  constructor(today: Day) {
    this.#today = today;
  }

  add(stream: string, loadedDays: readonly Day[]): void {
    for (const d of loadedDays) {
      if (d <= this.#today) continue;
      this.#count++;
      this.#streams.add(stream);
      if (this.#first === undefined || d < this.#first) this.#first = d;
    }
  }

  line(): string | undefined {
    if (this.#count === 0 || this.#first === undefined) return undefined;
    return `the database holds ${this.#count} window(s) dated after today (${this.#today}), the first ${this.#first}, in ${[...this.#streams].join(', ')}: a run stored them while this machine's clock was ahead; plans leave them out; remove them with: mintlify-etl prune --after ${this.#today} --yes`;
  }
}
