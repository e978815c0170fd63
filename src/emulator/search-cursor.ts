import type { DateRange } from './query-params.js';
import { SignedCursors } from './signed-cursor.js';

/**
 * The searches cursor: opaque to clients, but here a signed `{range, offset}` so that a
 * garbage cursor, a tampered one, or one from another project, seed or date range is refused
 * with a 400, as the service refuses a cursor it did not issue for this query.
 */
export class SearchCursors {
  private readonly signer: SignedCursors;

  constructor(seed: number, projectId: string) {
    this.signer = new SignedCursors('searches', seed, projectId);
  }

  encode(range: DateRange, offset: number): string {
    return this.signer.encode({ f: range.dateFrom, t: range.dateTo, o: offset });
  }

  /** The offset the cursor points at, or a message saying why it is not one of ours for `range`. */
  decode(cursor: string, range: DateRange): { offset: number } | { problem: string } {
    const fields = this.signer.decode(cursor) as { f: string; t: string; o: number } | undefined;
    if (fields === undefined) return { problem: 'cursor is not a cursor this service issued' };
    if (fields.f !== range.dateFrom || fields.t !== range.dateTo) {
      return {
        problem: `cursor belongs to the range ${fields.f} to ${fields.t}, not ${range.dateFrom} to ${range.dateTo}`,
      };
    }
    return { offset: fields.o };
  }
}
