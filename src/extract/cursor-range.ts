import { DataShiftError, HttpStatusError } from '../errors.js';
import { CursorGuard } from './cursor-guard.js';

/** One page of a cursor-paged range endpoint (feedback, assistant). */
export interface CursorPage<T> {
  readonly rows: readonly T[];
  readonly nextCursor: string | null;
  readonly hasMore: boolean;
}

export interface CursorRangeSpec<T> {
  /** For messages: `project stream window`. */
  readonly label: string;
  /** Fetches one page; `cursor` is undefined for the first. */
  readonly page: (cursor: string | undefined) => Promise<CursorPage<T>>;
  /** The row's key: a key seen twice in one pass means the data moved under the cursor. */
  readonly keyOf: (row: T) => string;
  /** Stop after this many pages and call the window truncated (--max-pages). */
  readonly maxPages?: number | undefined;
  readonly onPage?: (() => void) | undefined;
}

export interface CursorRangeResult<T> {
  readonly rows: T[];
  readonly pages: number;
  /** Passes over the range (more than 1 when the data moved under the cursor). */
  readonly attempts: number;
  readonly truncated: boolean;
  /** A page said hasMore but gave no cursor: the sequence ends there. */
  readonly endedWithoutCursor: boolean;
  /** Rows sent twice, identical both times: kept once (the service repeated itself, nothing moved). */
  readonly repeated: number;
}

const MAX_PASSES = 3;
/** More pages than this for one window is a server that never ends its cursor, not a big site. */
const MAX_PAGES = 10_000;

type Pass<T> = Omit<CursorRangeResult<T>, 'attempts'> | { shift: string } | { badCursor: HttpStatusError };

async function onePass<T>(spec: CursorRangeSpec<T>): Promise<Pass<T>> {
  const seen = new Map<string, number>();
  const rows: T[] = [];
  const guard = new CursorGuard({ label: spec.label });
  let repeated = 0;
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    if (pages > MAX_PAGES) throw new DataShiftError(`${spec.label}: more than ${MAX_PAGES} pages`);
    let page: CursorPage<T>;
    try {
      page = await spec.page(cursor);
    } catch (e) {
      if (cursor !== undefined && e instanceof HttpStatusError && e.status === 400) return { badCursor: e };
      throw e;
    }
    spec.onPage?.();
    const before = rows.length;
    for (const r of page.rows) {
      const key = spec.keyOf(r);
      const at = seen.get(key);
      if (at !== undefined) {
        // The same row again is a repeat; a key with other content means the data moved.
        if (JSON.stringify(rows[at]) !== JSON.stringify(r)) return { shift: `${key} appeared twice` };
        repeated++;
        continue;
      }
      seen.set(key, rows.length);
      rows.push(r);
    }
    const more = page.hasMore && page.nextCursor !== null && page.nextCursor !== '';
    guard.page(cursor, rows.length - before, more ? page.nextCursor : null);
    if (!more) {
      const endedWithoutCursor = page.hasMore && !more;
      return { rows, pages, truncated: false, endedWithoutCursor, repeated };
    }
    if (spec.maxPages !== undefined && pages >= spec.maxPages)
      return { rows, pages, truncated: true, endedWithoutCursor: false, repeated };
    cursor = page.nextCursor ?? undefined;
  }
}

/**
 * Every row of one range window, as one cursor sequence: a key seen twice means the data moved
 * under the cursor, and the window is fetched again (at most MAX_PASSES times, then it fails and
 * the next run retries it); a cursor the server refuses (400: it forgot it) restarts the
 * sequence once.
 */
export async function fetchCursorRange<T>(spec: CursorRangeSpec<T>): Promise<CursorRangeResult<T>> {
  let restartedForCursor = false;
  let shifts = 0;
  let last = '';
  while (shifts < MAX_PASSES) {
    const r = await onePass(spec);
    if ('rows' in r) return { ...r, attempts: shifts + 1 };
    if ('badCursor' in r) {
      if (restartedForCursor) throw r.badCursor;
      restartedForCursor = true;
      continue;
    }
    last = r.shift;
    shifts++;
  }
  throw new DataShiftError(
    `${spec.label}: the data changed while paging, ${MAX_PASSES} times in a row (${last}); the window was not loaded and will be retried by the next run`,
    { window: spec.label },
  );
}
