import { describe, expect, it } from 'vitest';
import { StuckCursorError } from '../../src/errors.js';
import { CursorGuard } from '../../src/extract/cursor-guard.js';

const guard = () => new CursorGuard({ label: 'p searches 2026-01-05' });

describe('the cursor guard', () => {
  it('lets a sequence of fresh cursors with new rows run to its end', () => {
    const g = guard();
    g.page(undefined, 100, 'a');
    g.page('a', 100, 'b');
    g.page('b', 3, null);
  });

  it('fails at once when a cursor already followed comes back, even two pages later', () => {
    const g = guard();
    g.page(undefined, 100, 'a');
    g.page('a', 100, 'b');
    expect(() => g.page('b', 100, 'a')).toThrow(StuckCursorError);
  });

  it('fails after two pages in a row with nothing new, but not after one', () => {
    const g = guard();
    g.page(undefined, 0, 'a');
    g.page('a', 5, 'b');
    g.page('b', 0, 'c');
    expect(() => g.page('c', 0, 'd')).toThrow(/2 pages in a row brought no new row/);
  });

  it('fails when the pages exceed what the totals allow, naming the window', () => {
    const g = guard();
    g.boundByTotals(150, 100, 'totalSearches');
    g.page(undefined, 100, 'a');
    g.page('a', 50, 'b');
    expect(() => g.page('b', 1, 'c')).toThrow(
      /^p searches 2026-01-05: the cursor does not advance \(3 pages and still a cursor, more than totalSearches 150 at 100 a page allows\)/,
    );
  });
});
