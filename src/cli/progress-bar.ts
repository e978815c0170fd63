import cliProgress from 'cli-progress';
import type { ProgressSink, ProgressState } from '../pipeline/progress.js';
import { formatDuration } from '../util/duration.js';

/** A progress bar on stderr when it is a terminal; nothing at all when output is piped or in CI. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): ProgressSink | undefined {
  if (!stream.isTTY || process.env['CI']) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: ' {bar} {value}/{total} days | {requests} requests | {rows} rows | ETA {eta_formatted}{wait}',
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = (s: ProgressState): Record<string, unknown> => ({
    requests: s.requests,
    rows: s.rows,
    wait:
      s.waitingUntil !== undefined && s.waitingUntil > Date.now()
        ? ` | budget wait ${formatDuration(s.waitingUntil - Date.now())}`
        : '',
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
