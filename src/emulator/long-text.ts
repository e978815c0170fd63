/**
 * Text of the lengths and characters a real site's readers and assistant produce. A real site
 * (issue 27, item 2) had assistant answers up to 30,140 characters and questions and search terms
 * up to 864, and the emulator's one-line answers let a read that needed 128 MB pass every test.
 * Pure functions of their arguments: they take no draws from a stream's PRNG, so a turn's or a
 * day's other values are the same as before the text grew.
 */

/** The longest answer a turn gets: the longest a real site showed. */
export const LONGEST_ANSWER = 30_140;
/** The longest question or search term: the longest a real site showed. */
export const LONGEST_QUERY = 864;

/**
 * Unicode that breaks naive code, none of it invalid: a combining accent (e + U+0301), a ZWJ
 * emoji sequence, right-to-left text, a zero-width space, a no-break space, a tab, and a CJK
 * character outside the BMP (a surrogate pair in UTF-16, four bytes in UTF-8).
 */
const ODD_UNICODE = 'cafe\u0301 👩‍💻 مرحبا بالعالم \u200bzero\u200bwidth\u00a0nbsp\tتبويب 𠜎 ℌ𝔢𝔩𝔩𝔬';

const PARAGRAPHS = [
  'Open the dashboard, choose Settings, then the section this page is about; changes apply to the next deployment.',
  '```bash\nnpx mintlify dev --port 3333\n# then open http://localhost:3333\n```',
  `Readers write in every script: ${ODD_UNICODE}.`,
  '| option | default | note |\n| --- | --- | --- |\n| `navigation` | none | groups & pages |\n| `theme` | "mint" | \'quoted\' |',
  '> Note: a redirect keeps old links working; list each one in docs.json with its source and destination.',
  '1. Install the CLI.\n2. Run it from the folder that holds docs.json.\n3. Push: the deployment starts by itself.',
];

/** `text` cut to `n` code points, never inside a surrogate pair (a lone half is invalid text). */
export function cutCodePoints(text: string, n: number): string {
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count >= n) break;
    out += ch;
    count++;
  }
  return out;
}

/** `head` followed by paragraphs (markdown, code, odd unicode) up to `length` code points. */
export function longText(head: string, length: number): string {
  const parts = [head];
  let size = head.length;
  for (let i = 0; size < length; i++) {
    const p = PARAGRAPHS[i % PARAGRAPHS.length] ?? '';
    parts.push(p);
    size += p.length + 2;
  }
  return cutCodePoints(parts.join('\n\n'), Math.max(length, Array.from(head).length));
}

/**
 * How long an answer is for a uniform draw `u` in [0, 1): most run 300 to 3,000 characters, one
 * in twenty runs 3,000 to LONGEST_ANSWER.
 */
export function answerLength(u: number): number {
  if (u < 0.95) return 300 + Math.floor((u / 0.95) * 2_700);
  return 3_000 + Math.floor(((u - 0.95) / 0.05) * (LONGEST_ANSWER - 3_000));
}

/** A question a reader pasted a whole error and stack into: LONGEST_QUERY characters. */
export const LONG_QUESTION = longText(
  'Why does the build fail with this error? I pasted the whole log:',
  LONGEST_QUERY,
);

/** A search term someone pasted a paragraph into: one line of LONGEST_QUERY characters, lower case. */
export const LONG_SEARCH = longText('how do i', LONGEST_QUERY).replace(/\n/g, ' ').toLowerCase();
