/** Windows in a row of one stream whose cursor did not advance before its other windows wait. */
export const STUCK_WINDOWS_TO_STOP = 2;

/**
 * Stops a stream whose endpoint keeps answering with a cursor that does not advance. Each such
 * window fails after a few requests, but a month of days of one broken endpoint would still
 * take most of the hour's budget from the healthy streams: after STUCK_WINDOWS_TO_STOP in a
 * row, the stream's other windows of this run are deferred to the next run.
 */
export class StuckStreams {
  readonly #inARow = new Map<string, number>();
  readonly #stopped = new Set<string>();

  /** A window of `key` (project and stream) ended; true when this one stops the stream. */
  ended(key: string, stuck: boolean): boolean {
    if (!stuck) {
      this.#inARow.delete(key);
      return false;
    }
    const n = (this.#inARow.get(key) ?? 0) + 1;
    this.#inARow.set(key, n);
    if (n < STUCK_WINDOWS_TO_STOP || this.#stopped.has(key)) return false;
    this.#stopped.add(key);
    return true;
  }

  stopped(key: string): boolean {
    return this.#stopped.has(key);
  }
}
