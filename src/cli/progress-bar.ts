import cliProgress from 'cli-progress';
import type { ProgressSink, ProgressState } from '../pipeline/progress.js';
import { formatDuration } from '../util/duration.js';

/** What one line of the bar shows; the times are already relative to now. */
export interface LineParts {
  readonly done: number;
  readonly total: number;
  readonly requests: number;
  readonly rows: number;
  /** Unknown until a few days are done. */
  readonly etaMs: number | undefined;
  /** Set while the run waits on the request budget. */
  readonly waitMs: number | undefined;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const BAR_MAX = 40;
const BAR_MIN = 10;

/**
 * The layouts a line may take, most informative first. Each next one drops or shortens the least
 * important part: the row count first, then the request count, then the words around the days
 * and the wait. The days done, the ETA and the budget wait are what someone watching needs most.
 */
function layouts(p: LineParts): string[][] {
  const days = `${p.done}/${p.total} days`;
  const daysShort = `${p.done}/${p.total}`;
  const requests = `${COUNT.format(p.requests)} requests`;
  const rows = `${COUNT.format(p.rows)} rows`;
  // cli-progress estimates in whole seconds: "0ms" would claim a precision it does not have.
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

function drawBar(done: number, total: number, width: number): string {
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
  const room = columns - 1;
  const options = layouts(p).map((parts) => ` ${parts.join(' | ')}`);
  for (const text of options) {
    const bar = Math.min(BAR_MAX, room - text.length - 1);
    if (bar >= BAR_MIN) return ` ${drawBar(p.done, p.total, bar)}${text}`;
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
          // cli-progress gives seconds, or a string ('NULL', 'INF', '0') while it cannot tell.
          etaMs: typeof params.eta === 'number' ? params.eta * 1000 : undefined,
          waitMs: wait > 0 ? wait : undefined,
        },
        stream.columns || 80,
      );
    },
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 20,
  });
  const payload = (s: ProgressState): Payload => ({
    requests: s.requests,
    rows: s.rows,
    waitingUntil: s.waitingUntil,
  });
  let running = false;
  return {
    start(s) {
      running = true;
      bar.start(s.windowsTotal, s.windowsDone, payload(s));
    },
    update(s) {
      if (running) bar.update(s.windowsDone, payload(s));
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}
