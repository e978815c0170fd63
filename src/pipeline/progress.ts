/** What the sync tells its display: counts only, so a TTY bar and a silent sink share one interface. */
export interface ProgressState {
  windowsTotal: number;
  windowsDone: number;
  requests: number;
  rows: number;
  /** Epoch ms until which the run is waiting on the request budget, if it is. */
  waitingUntil: number | undefined;
  /** Wall time left by the budget-aware estimate (see remainingEta); undefined before it is known. */
  etaMs?: number | undefined;
}

export interface ProgressSink {
  start(state: ProgressState): void;
  update(state: ProgressState): void;
  stop(): void;
  /** Clears the bar before a log line and redraws after, so they don't interleave. */
  readonly suspend?: () => void;
  readonly resume?: () => void;
}

export const noProgress: ProgressSink = {
  start: () => {},
  update: () => {},
  stop: () => {},
};
