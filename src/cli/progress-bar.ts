import cliProgress from 'cli-progress';
import type { ProgressSink, ProgressState } from '../pipeline/progress.js';
import { formatDuration } from '../util/duration.js';

/** What one line of the bar shows; the times are already relative to now. */
export interface LineParts {
  readonly done: number;
  readonly total: number;
  readonly requests: number;
  readonly rows: number;
  /** The run's budget-aware estimate; unknown until the first request is answered. */
  readonly etaMs: number | undefined;
  /** Set while the run waits on the request budget. */
  readonly waitMs: number | undefined;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const BAR_MAX = 40;
const BAR_MIN = 10;

/**
 * The layouts a line may take, most informative first. Each next one drops or shortens the least
 * important part: the row count first, then the request count, then the words around the windows
 * and the wait. The windows done, the ETA and the budget wait are what someone watching needs most.
 * They are windows, not days: a feedback month, an assistant week and a thread count one each.
 */
function layouts(p: LineParts): string[][] {
  const days = `${p.done}/${p.total} windows`;
  const daysShort = `${p.done}/${p.total}`;
  const requests = `${COUNT.format(p.requests)} requests`;
  const rows = `${COUNT.format(p.rows)} rows`;
  // Under a second is shown as 0s: "0ms" would claim a precision the estimate does not have.
  const eta = `ETA ${p.etaMs === undefined ? '–' : p.etaMs < 1_000 ? '0s' : formatDuration(p.etaMs)}`;
  const wait = p.waitMs === undefined ? [] : [`budget wait ${formatDuration(p.waitMs)}`];
  const waitShort = p.waitMs === undefined ? [] : [`wait ${formatDuration(p.waitMs)}`];
  return [
    [days, requests, rows, eta, ...wait],
    [days, requests, eta, ...wait],
    [days, eta, ...wait],
    [days, eta, ...waitShort],
    [daysShort, eta, ...waitShort],
  ];
}

export function drawBar(done: number, total: number, width: number): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const full = Math.round(fraction * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

/**
 * One line of the progress bar that fits `columns`, one column spare: a line that reaches the
 * last column makes some terminals wrap, and every redraw then starts a new line. The bar takes
 * what the text leaves, up to 40 columns; below 10 it goes before any text does.
 */
export function progressLine(p: LineParts, columns: number): string {
  return fitLine(layouts(p), p.done, p.total, columns);
}

/**
 * The first layout that fits `columns` (one spare) with a bar of at least 10 columns before it;
 * else the first that fits without a bar; else the last, cut. Each layout is a line's parts.
 */
export function fitLine(layouts: readonly string[][], done: number, total: number, columns: number): string {
  const room = columns - 1;
  const options = layouts.map((parts) => ` ${parts.join(' | ')}`);
  for (const text of options) {
    const bar = Math.min(BAR_MAX, room - text.length - 1);
    if (bar >= BAR_MIN) return ` ${drawBar(done, total, bar)}${text}`;
  }
  for (const text of options) {
    if (text.length <= room) return text;
  }
  return (options.at(-1) ?? '').slice(0, Math.max(0, room));
}

interface Payload {
  requests: number;
  rows: number;
  waitingUntil: number | undefined;
  etaMs: number | undefined;
}

/** Back to the start of the line and clear it: what a log line or the end of the bar needs. */
const CLEAR_LINE = '\r\x1b[2K';
const SHOW_CURSOR = '\x1b[?25h';

/** A bar's life on a terminal: whether it is drawn, and how it stops and steps aside for a log line. */
export interface BarLife {
  readonly running: () => boolean;
  readonly begin: () => void;
  readonly stop: () => void;
  readonly suspend: () => void;
  readonly resume: () => void;
}

export function barLife(bar: cliProgress.SingleBar, stream: NodeJS.WriteStream): BarLife {
  let running = false;
  return {
    running: () => running,
    begin: () => {
      running = true;
    },
    // Ctrl-C and the end of the run alike: no half-drawn line left behind, the cursor shown again.
    stop: () => {
      if (!running) return;
      running = false;
      bar.stop();
      stream.write(`${CLEAR_LINE}${SHOW_CURSOR}`);
    },
    // A log line goes on a clean line of its own, and the bar is drawn again below it.
    suspend: () => {
      if (running) stream.write(CLEAR_LINE);
    },
    resume: () => {
      if (running) bar.render();
    },
  };
}

/** A progress bar on stderr when it is a terminal; nothing at all when output is piped or in CI. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): ProgressSink | undefined {
  if (!stream.isTTY || process.env['CI']) return undefined;
  const bar = new cliProgress.SingleBar({
    stream,
    // Called on every redraw with the terminal's width then, so a resized terminal refits.
    format: (_options, params, payload: Payload) => {
      const wait = payload.waitingUntil !== undefined ? payload.waitingUntil - Date.now() : 0;
      return progressLine(
        {
          done: params.value,
          total: params.total,
          requests: payload.requests,
          rows: payload.rows,
          // The run's own estimate: cli-progress's (windows done per second) ignores the budget.
          etaMs: payload.etaMs,
          waitMs: wait > 0 ? wait : undefined,
        },
        stream.columns || 80,
      );
    },
    hideCursor: true,
    clearOnComplete: true,
    // A log line clears the bar's line; an unchanged bar must still be drawn again below it.
    forceRedraw: true,
    etaBuffer: 20,
  });
  const payload = (s: ProgressState): Payload => ({
    requests: s.requests,
    rows: s.rows,
    waitingUntil: s.waitingUntil,
    etaMs: s.etaMs,
  });
  const life = barLife(bar, stream);
  return {
    start(s) {
      life.begin();
      bar.start(s.windowsTotal, s.windowsDone, payload(s));
    },
    update(s) {
      if (!life.running()) return;
      bar.setTotal(s.windowsTotal);
      bar.update(s.windowsDone, payload(s));
    },
    stop: life.stop,
    suspend: life.suspend,
    resume: life.resume,
  };
}
