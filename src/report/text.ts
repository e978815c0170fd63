/**
 * Text that goes to a terminal: page paths come from the API as-is, so they may hold control
 * characters (an ESC would let a path repaint the screen), bidi overrides, combining marks and
 * wide CJK or emoji. These helpers make such text inert and measure it in terminal columns.
 */

// C0/C1 controls and the bidi embedding/override/isolate characters.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/** Replaces control and bidi characters with a visible escape such as `\x1b`. */
export function inert(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ZERO_WIDTH = /^(?:\p{Mark}|\p{Default_Ignorable_Code_Point})+$/u;
// East Asian Wide/Fullwidth blocks and emoji presentation: two columns in a terminal.
const WIDE =
  /^(?:[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}\ufe0f)/u;

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

function graphemeWidth(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0;
  return WIDE.test(g) ? 2 : 1;
}

/** Columns the text takes in a terminal (approximate for exotic scripts, exact for ASCII). */
export function displayWidth(text: string): number {
  let w = 0;
  for (const g of graphemes(text)) w += graphemeWidth(g);
  return w;
}

/**
 * Shortens text to at most `width` columns by cutting out its middle: a docs path's start
 * (section) and end (page) say the most.
 */
export function truncateMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const gs = graphemes(text);
  const budget = width - 1;
  const headBudget = Math.ceil(budget / 2);
  let head = '';
  let used = 0;
  let i = 0;
  for (; i < gs.length; i++) {
    const g = gs[i] ?? '';
    const gw = graphemeWidth(g);
    if (used + gw > headBudget) break;
    head += g;
    used += gw;
  }
  let tail = '';
  let tailUsed = 0;
  for (let j = gs.length - 1; j >= i; j--) {
    const g = gs[j] ?? '';
    const gw = graphemeWidth(g);
    if (used + tailUsed + gw > budget) break;
    tail = g + tail;
    tailUsed += gw;
  }
  return `${head}…${tail}`;
}

export function padEndTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

export function padStartTo(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}
