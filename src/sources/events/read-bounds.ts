import { EventObjectDamagedError, EventObjectTooSlowError } from './errors.js';

/**
 * The bounds of one object's read, so that no object can hold a run for long: a floor on the bytes
 * per second of its read given its listed size (a server sending a byte every 2 s is stopped), and
 * a bound on how far gzip may expand it (a gzip bomb is refused as damaged).
 *
 * The time bound counts only the time spent waiting on the store for the next chunk, not the time
 * the load takes to digest one: a slow destination or a big gzip object's parsing never makes a
 * healthy object "too slow", while a trickling server spends all of its time in the wait.
 */
export interface ReadBoundsOptions {
  /** The floor, in bytes per second of waiting (default 512 KiB/s). */
  readonly minBytesPerSecond?: number;
  /** Time allowed on top of size / floor (default 30 s). */
  readonly baseMs?: number;
  /** Gzip: refused past this many times the compressed size... (default 100) */
  readonly maxExpansion?: number;
  /** ...and past this many bytes inflated (default 1 GiB): both must be passed. */
  readonly maxInflatedBytes?: number;
  /** Tests: the clock the waits are measured with. */
  readonly now?: () => number;
}

export const DEFAULT_READ_BOUNDS = {
  minBytesPerSecond: 512 * 1024,
  baseMs: 30_000,
  maxExpansion: 100,
  maxInflatedBytes: 2 ** 30,
} as const;

/** The wait an object of `size` bytes may spend on its store, in ms. */
export function readDeadlineMs(size: number, o: ReadBoundsOptions = {}): number {
  const floor = o.minBytesPerSecond ?? DEFAULT_READ_BOUNDS.minBytesPerSecond;
  return (o.baseMs ?? DEFAULT_READ_BOUNDS.baseMs) + (Math.max(0, size) / floor) * 1000;
}

/**
 * Waits on the body's chunks within the object's time bound. `next` is awaited with a timer set
 * to what is left of the bound; when it fires, `stop` is called (it destroys the body) and the
 * wait fails with EventObjectTooSlowError.
 */
export class ReadPace {
  #waited = 0;
  readonly #allowedMs: number;
  readonly #now: () => number;

  constructor(
    private readonly size: number,
    private readonly opts: ReadBoundsOptions,
    private readonly stop: (e: Error) => void,
  ) {
    this.#allowedMs = readDeadlineMs(size, opts);
    this.#now = opts.now ?? Date.now;
  }

  async wait<T>(next: Promise<T>): Promise<T> {
    const start = this.#now();
    const left = this.#allowedMs - this.#waited;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          const e = this.#tooSlow();
          this.stop(e);
          reject(e);
        },
        Math.max(0, left),
      );
    });
    try {
      return await Promise.race([next, late]);
    } finally {
      clearTimeout(timer);
      this.#waited += this.#now() - start;
    }
  }

  #tooSlow(): EventObjectTooSlowError {
    const floor = this.opts.minBytesPerSecond ?? DEFAULT_READ_BOUNDS.minBytesPerSecond;
    return new EventObjectTooSlowError(
      `the object came too slowly: ${this.size} byte(s) listed, not read within ${Math.round(this.#allowedMs / 1000)} s of waiting on the store (${Math.round(floor / 1024)} KiB/s at least, plus ${Math.round((this.opts.baseMs ?? DEFAULT_READ_BOUNDS.baseMs) / 1000)} s)`,
      { size: this.size, allowedMs: this.#allowedMs },
    );
  }
}

/** Counts gzip's output and refuses it past both bounds (as a damaged object). */
export class ExpansionBound {
  #inflated = 0;
  readonly #ratio: number;
  readonly #max: number;

  constructor(
    private readonly compressedSize: () => number,
    opts: ReadBoundsOptions,
  ) {
    this.#ratio = opts.maxExpansion ?? DEFAULT_READ_BOUNDS.maxExpansion;
    this.#max = opts.maxInflatedBytes ?? DEFAULT_READ_BOUNDS.maxInflatedBytes;
  }

  add(n: number): void {
    this.#inflated += n;
    const size = this.compressedSize();
    if (this.#inflated > this.#max && this.#inflated > this.#ratio * size) {
      throw new EventObjectDamagedError(
        `a gzip object expands past ${this.#ratio} times its ${size} compressed byte(s) and past ${this.#max} byte(s): refused as damaged (a gzip bomb or a broken writer)`,
        { compressed: size, inflated: this.#inflated },
      );
    }
  }
}
