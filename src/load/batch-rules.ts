import { EtlError, InternalError, ValueTooLargeError } from '../errors.js';
import { withoutQuotedValues } from './driver-message.js';
import { formatSize } from './large-values.js';
import type { PreparedWindow } from './prepared-window.js';

/*
 * What every destination's batch loader does alike, whatever SQL it speaks: which window of a
 * key a batch keeps, and the one line a failed batch is reported with.
 */

/** The last window of a (project, stream, day) wins, as if the windows had been loaded one by one. */
export function lastPerWindow(windows: readonly PreparedWindow[]): PreparedWindow[] {
  const byKey = new Map<string, PreparedWindow>();
  for (const p of windows) {
    const key = `${p.w.projectId}\u0000${p.w.stream}\u0000${p.w.item?.id ?? p.w.day}`;
    byKey.delete(key);
    byKey.set(key, p);
  }
  return [...byKey.values()];
}

/**
 * The one-line error of a batch that failed to load (its transaction rolled back), naming the
 * window (or the batch's first) and the destination `into`; an EtlError passes as it is.
 */
export function batchFailure(e: unknown, windows: readonly PreparedWindow[], into: string): EtlError {
  if (e instanceof EtlError) return e;
  const first = (windows[0] as PreparedWindow).w;
  const name = `${first.projectId} ${first.stream === 'visitors' ? '' : `${first.stream} `}${first.day}`;
  // DuckDB's messages run to several lines of advice; the log and the window record take one,
  // without the row text a driver quotes (a reader's comment is never logged).
  const said = withoutQuotedValues(e instanceof Error ? e.message : String(e));
  if (windows.length === 1) {
    const big = (windows[0] as PreparedWindow).largest;
    if (big !== undefined && /out of memory/i.test(said)) {
      return new ValueTooLargeError(
        `${name}: ${big.what} could not be loaded (${formatSize(big.chars)} of JSON; ${said}); the window keeps its previous data`,
        { projectId: first.projectId, stream: first.stream, day: first.day, chars: big.chars },
        { cause: e },
      );
    }
    return new InternalError(
      `loading ${name} into ${into} failed (the day keeps its previous data): ${said}`,
      { projectId: first.projectId, stream: first.stream, day: first.day, path: into },
      { cause: e },
    );
  }
  return new InternalError(
    `loading a batch of ${windows.length} window(s) (first ${name}) into ${into} failed (every day of it keeps its previous data): ${said}`,
    { windows: windows.length, path: into },
    { cause: e },
  );
}
