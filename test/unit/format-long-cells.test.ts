import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/query/format.js';

describe('a table with a cell of megabytes', () => {
  it('cuts the cell to its column width with an ellipsis, measuring only what it shows', () => {
    // Non-ASCII and newlines take the grapheme path: measured whole, 8.8 MB took minutes.
    const huge = 'ünï line\n'.repeat(600_000);
    const out = formatTable([{ name: 'comment', key: 'comment', numeric: false }], [[huge], ['short']], {
      maxWidth: 120,
    });
    const lines = out.split('\n');
    expect(lines[2]).toBe(`${'ünï line↵'.repeat(5).slice(0, 39)}…`);
    expect(lines[3]).toBe('short');
  });

  it('still marks a cut when the part kept is narrower than the column', () => {
    const stacked = 'a' + '\u0301'.repeat(30);
    const out = formatTable([{ name: 'c', key: 'c', numeric: false }], [[stacked.repeat(100)]], {
      maxWidth: 120,
    });
    expect(out.split('\n')[2]?.endsWith('…')).toBe(true);
  });
});
