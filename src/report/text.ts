/**
 * Text that goes to a terminal: page paths come from the API as-is, so they may hold control
 * characters (an ESC would let a path repaint the screen), bidi overrides, combining marks and
 * wide CJK or emoji. These helpers make such text inert and measure it in terminal columns.
 */

import { displayWidth, graphemes, graphemeWidth } from '../util/width.js';

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

export { displayWidth } from '../util/width.js';

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

/**
 * User text (a comment, a question) on one line: every run of whitespace, line breaks and tabs
 * included, becomes one space. Other control characters are left for inert (terminal) and
 * escapeHtml (HTML) to deal with.
 */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** Shortens text to at most `width` columns by cutting its end (with …), whole graphemes only. */
export function truncateEnd(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const gw = graphemeWidth(g);
    if (used + gw > width - 1) break;
    out += g;
    used += gw;
  }
  return `${out.trimEnd()}…`;
}
