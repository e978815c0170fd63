import { StuckCursorError } from '../errors.js';

/** Pages in a row that bring no new row before a cursor sequence is called stuck. */
export const MAX_EMPTY_RUN = 2;
/** Pages allowed beyond what the totals say the sequence needs: one empty last page with a cursor. */
export const TOTALS_SLACK = 1;

export interface CursorGuardOptions {
  /** For messages: `project stream window`. */
  readonly label: string;
  readonly maxEmptyRun?: number;
}

/**
 * Watches one pass of a cursor sequence and throws StuckCursorError as soon as it cannot be
 * making progress: a cursor already sent in this window comes back, `maxEmptyRun` pages in a
 * row bring no new row, or the pages exceed what the window's own totals allow. Each costs
 * a few requests where the 10,000-page backstop cost the whole hour's budget.
 */
export class CursorGuard {
  readonly #label: string;
  readonly #maxEmptyRun: number;
  readonly #sent = new Set<string>();
  #emptyRun = 0;
  #pages = 0;
  #maxPages = Infinity;
  #why = '';

  constructor(opts: CursorGuardOptions) {
    this.#label = opts.label;
    this.#maxEmptyRun = opts.maxEmptyRun ?? MAX_EMPTY_RUN;
  }

  /**
   * The totals bound the pages: `rows` at most in the window, `limit` a page. Set from the first
   * page (searches: terms are at most totalSearches, since every term was searched once).
   */
  boundByTotals(rows: number, limit: number, what: string): void {
    this.#maxPages = Math.ceil(Math.max(0, rows) / limit) + TOTALS_SLACK;
    this.#why = `${what} ${rows} at ${limit} a page`;
  }

  /**
   * One page arrived: `sent` is the cursor it was asked with (undefined for the first page),
   * `newRows` the rows it added that the pass had not seen, `next` the cursor to follow (null
   * when the sequence ends).
   */
  page(sent: string | undefined, newRows: number, next: string | null): void {
    this.#pages++;
    if (sent !== undefined) this.#sent.add(sent);
    if (next === null) return;
    if (this.#sent.has(next)) {
      throw this.#stuck(`the server sent back cursor ${clip(next)}, already followed on an earlier page`);
    }
    this.#emptyRun = newRows === 0 ? this.#emptyRun + 1 : 0;
    if (this.#emptyRun >= this.#maxEmptyRun) {
      throw this.#stuck(`${this.#emptyRun} pages in a row brought no new row but another cursor`);
    }
    if (this.#pages >= this.#maxPages) {
      throw this.#stuck(`${this.#pages} pages and still a cursor, more than ${this.#why} allows`);
    }
  }

  #stuck(why: string): StuckCursorError {
    return new StuckCursorError(
      `${this.#label}: the cursor does not advance (${why}); the window failed after ${this.#pages} page(s) and is retried by the next run`,
      { window: this.#label, pages: this.#pages },
    );
  }
}

/** Cursors are opaque and may be long: enough of one to recognise it in a log. */
function clip(cursor: string): string {
  return JSON.stringify(cursor.length > 24 ? `${cursor.slice(0, 24)}…` : cursor);
}
