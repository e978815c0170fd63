import { describe, expect, it } from 'vitest';
import { questionSeparators, SEPARATOR_RANGES } from '../../src/util/question-key.js';

/** Every code point the table holds, from its ranges. */
function tableCodes(): Set<number> {
  const out = new Set<number>();
  for (const r of SEPARATOR_RANGES) {
    const [a, b] = typeof r === 'number' ? [r, r] : r;
    for (let c = a; c <= b; c++) out.add(c);
  }
  return out;
}

describe('the separators of question_key', () => {
  it("are Unicode's punctuation, symbols, spaces, control and format characters (as this Node knows them)", () => {
    // A failure after a Node upgrade means its Unicode tables moved: decide whether the keys may
    // change (gap ids are hashes of them), and if so regenerate SEPARATOR_RANGES.
    const separator = /[\p{P}\p{S}\p{Z}\p{Cc}\p{Cf}]/u;
    const table = tableCodes();
    const differ: string[] = [];
    for (let c = 1; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (separator.test(String.fromCodePoint(c)) !== table.has(c)) differ.push(c.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it('is one class, ASCII escaped, the rest as characters', () => {
    const cls = questionSeparators();
    expect(cls.startsWith('[\\x01-\\x2f\\x3a-\\x40')).toBe(true);
    expect(cls.endsWith(']+')).toBe(true);
    const re = new RegExp(cls, 'u');
    for (const s of ['？', '。', '、', '「', '؟', '\u00a0', '\u3000', '—', '“', '🙏', '$', '\u200b']) {
      expect(re.test(s), JSON.stringify(s)).toBe(true);
    }
    for (const s of ['a', 'é', '7', '密', 'ß', '\u0301']) expect(re.test(s), JSON.stringify(s)).toBe(false);
  });
});
