/**
 * How many terminal columns text takes, by grapheme: combining marks and invisible characters
 * take none; East Asian wide and fullwidth characters and emoji (those drawn as emoji by
 * default, like ☕, or made so by U+FE0F) take two; everything else one. Approximate for exotic
 * scripts, exact for ASCII. One definition for every table the tool prints.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ZERO_WIDTH = /^(?:\p{Mark}|\p{Default_Ignorable_Code_Point})+$/u;
const WIDE =
  /^(?:[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[\u{20000}-\u{3FFFD}]|\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F)/u;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

export function graphemeWidth(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0;
  return WIDE.test(g) ? 2 : 1;
}

/** Terminal columns of `text`. */
export function displayWidth(text: string): number {
  // Printable ASCII is one cell a character: no segmenting (a 10,000-row table measures every
  // cell several times, and Intl.Segmenter's objects took 1.2 s and ~130 MB of the query's peak).
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let w = 0;
  for (const g of graphemes(text)) w += graphemeWidth(g);
  return w;
}
