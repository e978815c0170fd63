import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DateRange } from './query-params.js';

/**
 * The searches cursor: opaque to clients, but here a signed `{range, offset}` so that a
 * garbage cursor, a tampered one, or one from another project, seed or date range is refused
 * with a 400, as the service refuses a cursor it did not issue for this query.
 */
export class SearchCursors {
  private readonly key: string;

  constructor(seed: number, projectId: string) {
    this.key = `mintlify-emulator:searches:${seed}:${projectId}`;
  }

  encode(range: DateRange, offset: number): string {
    const payload = Buffer.from(JSON.stringify({ f: range.dateFrom, t: range.dateTo, o: offset })).toString(
      'base64url',
    );
    return `${payload}.${this.sign(payload)}`;
  }

  /** The offset the cursor points at, or a message saying why it is not one of ours for `range`. */
  decode(cursor: string, range: DateRange): { offset: number } | { problem: string } {
    const [payload, signature, ...rest] = cursor.split('.');
    if (
      payload === undefined ||
      signature === undefined ||
      rest.length > 0 ||
      !this.verify(payload, signature)
    ) {
      return { problem: 'cursor is not a cursor this service issued' };
    }
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      f: string;
      t: string;
      o: number;
    };
    if (fields.f !== range.dateFrom || fields.t !== range.dateTo) {
      return {
        problem: `cursor belongs to the range ${fields.f} to ${fields.t}, not ${range.dateFrom} to ${range.dateTo}`,
      };
    }
    return { offset: fields.o };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }

  private verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
