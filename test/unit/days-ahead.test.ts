import { describe, expect, it } from 'vitest';
import { DaysAhead } from '../../src/pipeline/days-ahead.js';

describe('loaded windows dated after today', () => {
  it("says nothing of today's window (an --include-today run's partial day is no clock ahead)", () => {
    const ahead = new DaysAhead('2026-03-02');
    ahead.add('visitors', ['2026-02-28', '2026-03-01', '2026-03-02']);
    expect(ahead.line()).toBeUndefined();
  });

  it('counts the days after today, names the first and the streams, and the command that removes them', () => {
    const ahead = new DaysAhead('2026-03-02');
    ahead.add('visitors', ['2026-03-02', '2026-03-04', '2026-03-03']);
    ahead.add('views', ['2026-03-03']);
    expect(ahead.line()).toBe(
      "the database holds 3 window(s) dated after today (2026-03-02), the first 2026-03-03, in visitors, views: a run stored them while this machine's clock was ahead; plans leave them out; remove them with: mintlify-etl prune --after 2026-03-02 --yes",
    );
  });
});
