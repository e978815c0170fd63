/**
 * "The same question": the one rule that says when two texts readers typed (an assistant question,
 * a search term) are one question. The views, the report, the gaps, the alerts and the digest all
 * group by the SQL function `question_key(text)`, defined once in the views and filled in from here
 * when the SQL is applied (src/load/sql-render.ts), so no reader spells it again.
 *
 * The rule, in order (docs/gaps.md states it for users):
 * 1. readers' e-mail addresses become [email] (redact_emails, src/util/personal-data.ts);
 * 2. lower case over all of Unicode; the two letters whose lower case depends on the engine are
 *    made one first: U+0130 (capital I with dot) lowers to plain i, and the final sigma ς is σ;
 * 3. every run of separators becomes one space: Unicode punctuation (P), symbols (S: $ + < = > ^ `
 *    | ~, emoji, arrows), spaces of any script (Z: NBSP, U+3000) and control and format characters
 *    (Cc, Cf: tabs, newlines, zero-width space);
 * 4. the ends are trimmed.
 * So "How do I reset my API key?", "  how do i  reset my api key!!", "How do I reset my API key？"
 * and "「How do I reset my API key」" are one question, "how do i reset my api key".
 *
 * Why an explicit class and not \pP or [[:punct:]]: DuckDB's RE2 knows \p classes, PostgreSQL's
 * regular expressions do not, and there [[:punct:]] follows the database's ctype (ASCII only under
 * C or POSIX, locale-dependent otherwise). The class is computed from this Node's Unicode tables and
 * written as characters (ASCII as \x escapes), which RE2 and PostgreSQL read alike, so both
 * destinations give the same key for the same text.
 */

/** The general categories that separate words of a question. */
const SEPARATOR = /[\p{P}\p{S}\p{Z}\p{Cc}\p{Cf}]/u;

/** One character of the class: ASCII escaped (it may be special inside [...]), the rest as itself. */
function classChar(code: number): string {
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : String.fromCodePoint(code);
}

/**
 * The planes that hold separators: the basic and supplementary multilingual planes (U+0000 to
 * U+1FFFF) and the special-purpose plane's tags (U+E0000 to U+E0FFF). The others hold ideographs
 * (planes 2 and 3), nothing yet, or private use: reading them would triple the time for nothing.
 */
const PLANES: readonly (readonly [number, number])[] = [
  [0x1, 0x1ffff],
  [0xe0000, 0xe0fff],
];

let cached: string | undefined;

/**
 * The separators as a regular-expression class matching a run of them (`[...]+`). U+0000 is left
 * out: PostgreSQL text cannot hold it (the loaders store U+FFFD instead). Computed once, on first
 * use, when the views are applied (some 60 ms).
 */
export function questionSeparators(): string {
  if (cached !== undefined) return cached;
  const parts: string[] = [];
  for (const [first, last] of PLANES) {
    let start = -1;
    for (let code = first; code <= last + 1; code++) {
      const surrogate = code >= 0xd800 && code <= 0xdfff;
      const inClass = code <= last && !surrogate && SEPARATOR.test(String.fromCodePoint(code));
      if (inClass && start < 0) start = code;
      if (!inClass && start >= 0) {
        const end = code - 1;
        parts.push(end === start ? classChar(start) : `${classChar(start)}-${classChar(end)}`);
        start = -1;
      }
    }
  }
  cached = `[${parts.join('')}]+`;
  return cached;
}
