import cliProgress from 'cli-progress';
import type { EventProgressSink, EventProgressState } from '../pipeline/event-progress.js';
import { formatDuration } from '../util/duration.js';
import { barLife, fitLine } from './progress-bar.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A size in a few characters: the bar's line has no room for "70,229 bytes". */
export function shortSize(bytes: number): string {
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < UNITS.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${UNITS[unit]}`;
}

/**
 * The layouts a line may take, most informative first; each next one drops the least needed part:
 * the bytes, then the events, then the word "objects". While the listing runs, the totals are
 * those listed so far ("+": more may come) and the ETA is at least what it says ("≥").
 */
function layouts(s: EventProgressState): string[][] {
  const more = s.listingDone ? '' : '+';
  const objects = `${COUNT.format(s.objectsDone)}/${COUNT.format(s.objectsListed)}${more} objects`;
  const objectsShort = `${COUNT.format(s.objectsDone)}/${COUNT.format(s.objectsListed)}${more}`;
  const bytes = `${shortSize(s.bytesRead)}/${shortSize(s.bytesToRead)}${more}`;
  const events = `${COUNT.format(s.events)} events`;
  // Under a second is shown as 0s: "0ms" would claim a precision the estimate does not have.
  const left = s.etaMs === undefined ? '–' : s.etaMs < 1_000 ? '0s' : formatDuration(s.etaMs);
  const eta = `ETA ${s.etaMs !== undefined && !s.listingDone ? '≥ ' : ''}${left}`;
  return [
    [objects, bytes, events, eta],
    [objects, events, eta],
    [objects, eta],
    [objectsShort, eta],
  ];
}

/**
 * One line of the event phase's bar that fits `columns`, one column spare (a line that reaches
 * the last column wraps on some terminals). The bar fills by bytes, what the reads take time over;
 * by objects when none is to be read.
 */
export function eventProgressLine(s: EventProgressState, columns: number): string {
  const [done, total] = s.bytesToRead > 0 ? [s.bytesRead, s.bytesToRead] : [s.objectsDone, s.objectsListed];
  return fitLine(layouts(s), done, total, columns);
}

/** The event phase's sink, and the hooks a log line needs around it. */
export interface EventProgressBar extends EventProgressSink {
  suspend(): void;
  resume(): void;
}

/** The event phase's bar on stderr when it is a terminal; nothing when output is piped or in CI. */
export function createEventProgress(
  stream: NodeJS.WriteStream = process.stderr,
): EventProgressBar | undefined {
  if (!stream.isTTY || process.env['CI']) return undefined;
  const bar = new cliProgress.SingleBar({
    stream,
    // Called at every redraw with the terminal's width then, so a resized terminal refits.
    format: (_options, _params, payload: { state: EventProgressState }) =>
      eventProgressLine(payload.state, stream.columns || 80),
    hideCursor: true,
    clearOnComplete: true,
    // A log line clears the bar's line; an unchanged bar must still be drawn again below it.
    forceRedraw: true,
  });
  const life = barLife(bar, stream);
  return {
    start(state) {
      life.begin();
      bar.start(1, 0, { state });
    },
    update(state) {
      if (life.running()) bar.update({ state });
    },
    stop: life.stop,
    suspend: life.suspend,
    resume: life.resume,
  };
}
