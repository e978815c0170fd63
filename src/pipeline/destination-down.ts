import { EtlError } from '../errors.js';
import { diskFullError, isDiskFull } from '../util/file-errors.js';

/**
 * An error that says the destination can take no more writes this run, as the one line to show:
 * a full disk (DuckDB's or Node's words, anywhere in the cause chain), or an error a destination
 * marks `stopsTheRun` (PostgreSQL: the server ended the connection). `undefined` for an error that
 * belongs to its window alone. The pipeline needs no destination's classes to tell.
 */
export function destinationDown(e: unknown, where: string): EtlError | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; depth++) {
    if (c instanceof EtlError && (c as { stopsTheRun?: boolean }).stopsTheRun === true) return c;
    c = c.cause;
  }
  if (isDiskFull(e)) return diskFullError(e, where, 'the run stopped');
  return undefined;
}

/** What a failed load left as it was, in the window's own unit: a day, a week, a month, a thread. */
export function unchanged(w: { day: string; dateTo: string; item?: unknown }): string {
  if (w.item !== undefined) return 'the thread is unchanged';
  const days = Math.round((Date.parse(w.dateTo) - Date.parse(w.day)) / 86_400_000);
  if (days <= 1) return 'the day is unchanged';
  if (days === 7) return 'the week is unchanged';
  if (days >= 28 && days <= 31) return 'the month is unchanged';
  return `the ${days} days are unchanged`;
}
