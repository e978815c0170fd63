/** What the event phase tells its display: counts only, so a TTY bar and no display share one interface. */
export interface EventProgressState {
  /** Objects handled (read, failed, or skipped as loaded already), of those listed so far and read again. */
  readonly objectsDone: number;
  readonly objectsListed: number;
  /** False while the listing still runs: the totals may grow, and the ETA is a lower bound. */
  readonly listingDone: boolean;
  /** Stored bytes (compressed for gzip) of the objects read, of those to read. */
  readonly bytesRead: number;
  readonly bytesToRead: number;
  /** Events read from the objects loaded, and from the one being read. */
  readonly events: number;
  /** Wall time left; undefined until an object has been read. */
  readonly etaMs: number | undefined;
}

export interface EventProgressSink {
  start(state: EventProgressState): void;
  update(state: EventProgressState): void;
  stop(): void;
}

/**
 * The event phase's counts for its display, kept as the summary keeps them: an object's events
 * count once it is loaded (a failed or interrupted object's are rolled back, here too), so the
 * numbers the bar ends on are the summary's.
 */
export class EventProgress {
  #listed = 0;
  #done = 0;
  #listingDone = false;
  #toRead = 0;
  #read = 0;
  #bytesToRead = 0;
  #bytesRead = 0;
  #events = 0;
  #eventsInObject = 0;
  #readingSince: number | undefined;
  #started = false;

  constructor(
    private readonly sink: EventProgressSink | undefined,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  start(): void {
    if (this.sink === undefined) return;
    this.#started = true;
    this.sink.start(this.state());
  }

  /** An object the listing gave (or a recorded failure looked up again): to read, or only to skip. */
  listed(size: number, toRead: boolean): void {
    this.#listed++;
    if (toRead) {
      this.#toRead++;
      this.#bytesToRead += size;
    }
    this.#show();
  }

  listingEnded(): void {
    this.#listingDone = true;
    this.#show();
  }

  /** An object listed that no project wants: handled without a read. */
  skipped(): void {
    this.#done++;
    this.#show();
  }

  reading(): void {
    this.#readingSince ??= this.clock();
    this.#eventsInObject = 0;
  }

  eventsRead(n: number): void {
    this.#eventsInObject += n;
    this.#show();
  }

  /** The object's read ended: its bytes count as read either way, its events only when it loaded. */
  read(size: number, loaded: boolean): void {
    this.#done++;
    this.#read++;
    this.#bytesRead += size;
    if (loaded) this.#events += this.#eventsInObject;
    this.#eventsInObject = 0;
    this.#show();
  }

  stop(): void {
    if (!this.#started) return;
    this.#started = false;
    this.sink?.stop();
  }

  state(): EventProgressState {
    return {
      objectsDone: this.#done,
      objectsListed: this.#listed,
      listingDone: this.#listingDone,
      bytesRead: this.#bytesRead,
      bytesToRead: this.#bytesToRead,
      events: this.#events + this.#eventsInObject,
      etaMs: this.#eta(),
    };
  }

  /**
   * The time the reads so far took, scaled by what is left of the larger of two shares: bytes (a
   * big object parses longer) and objects (each small one still costs a read and a transaction).
   * The larger is the honest one when the objects left are unlike those read.
   */
  #eta(): number | undefined {
    if (this.#readingSince === undefined || this.#read === 0) return undefined;
    const elapsed = this.clock() - this.#readingSince;
    const byObjects = (this.#toRead - this.#read) / this.#read;
    const byBytes = this.#bytesRead > 0 ? (this.#bytesToRead - this.#bytesRead) / this.#bytesRead : 0;
    return Math.max(0, elapsed * Math.max(byObjects, byBytes));
  }

  #show(): void {
    if (this.#started) this.sink?.update(this.state());
  }
}
