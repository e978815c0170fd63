/**
 * Readers' e-mail addresses: the one rule that finds them in readers' text (questions, answers,
 * search terms, comments) and the token that replaces them. Every place that shows readers' text
 * uses it: the views (their `redact_emails` is rendered from EMAIL_PATTERN when the SQL is applied,
 * see src/load/sql-render.ts), and the TypeScript readers that show text from the tables (the
 * report, the digest, the alerts, the agent's fix prompt) through `maskEmails`.
 *
 * The pattern is written in the regular-expression syntax that JavaScript (with the `u` flag),
 * RE2 (DuckDB's regexp_replace) and PostgreSQL's AREs read alike, so the destinations give the same
 * rows: only negated classes of ASCII code points (every non-ASCII character is a letter of an
 * address unless named), `(?:...)`, bounded repetition, and the characters themselves (no \u or
 * \p, which not every engine knows). Nothing is decoded: an encoded at sign (`%40`, `&#64;`,
 * `&#x40;`, `&commat;`, the full-width `＠` and the small `﹫`) is one of the spellings of the at
 * sign the pattern accepts, so the text around an address stays exactly as the reader wrote it.
 * The part before the at sign is at most 64 characters (as RFC 5321 allows), which keeps a
 * backtracking engine (JavaScript's) linear on a 30,000-character answer without a single space.
 *
 * What it masks: `user@bücher.de`, `üser@例え.jp`, `"john smith"@example.org`, `bob%40corp.io`
 * (also `%2540`, percent-encoded twice), `dave&#64;example.com`, `alice＠example.com`, an address
 * anywhere in a URL (`?u=bob@corp.io`, `/users/bob%40corp.io`, `mailto:`), any letter case. What it
 * does not: an address spelled out in words (`bob at corp dot io`), one without a top-level domain
 * (`root@localhost`), an IP-literal domain. It errs towards masking: `logo@2x.png` is masked too.
 */

/** What replaces a reader's e-mail address wherever readers' text is shown. */
export const EMAIL_TOKEN = '[email]';

/** White space beyond ASCII that ends a word (no-break, en to zero-width, ideographic, BOM). */
const WIDE_SPACES = '\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff';
/** The at sign's full-width and small forms, written as themselves. */
const WIDE_ATS = '\uff20\ufe6b';

/** A character of the part before the at sign: letters, digits, `.`, `_`, `%`, `+`, `-`, any non-ASCII. */
const LOCAL = `[^\\x01-\\x24\\x26-\\x2a\\x2c\\x2f\\x3a-\\x40\\x5b-\\x5e\\x60\\x7b-\\x7f${WIDE_SPACES}${WIDE_ATS}]`;
/** A character of a domain label: letters, digits, `-`, any non-ASCII. */
const LABEL = `[^\\x01-\\x2c\\x2e\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f${WIDE_SPACES}${WIDE_ATS}\u3002\uff0e]`;
/** A character of the top-level domain: letters, any non-ASCII (no digit, no hyphen). */
const TLD = `[^\\x01-\\x40\\x5b-\\x60\\x7b-\\x7f${WIDE_SPACES}${WIDE_ATS}\u3002\uff0e]`;
/** The at sign as readers' text carries it: plain, full-width, small, percent- or HTML-encoded. */
const AT = `(?:@|${WIDE_ATS.split('').join('|')}|%(?:25)?40|&#0{0,4}64;|&#[xX]0{0,4}40;|&commat;)`;

/**
 * The rule, as regular-expression source for every engine. The quoted form ("john smith"@...)
 * takes any character but a quote and control characters, at most 64.
 */
export const EMAIL_PATTERN = `(?:"[^"\\x01-\\x1f]{1,64}"|${LOCAL}{1,64})${AT}${LABEL}+(?:\\.${LABEL}+)*\\.${TLD}{2,}`;

const EMAIL_RE = new RegExp(EMAIL_PATTERN, 'gu');

/** The text with every reader's e-mail address in it replaced by [email]. */
export function maskEmails(text: string): string {
  return text.replace(EMAIL_RE, EMAIL_TOKEN);
}

/** maskEmails of a value that may be missing. */
export function maskEmailsOrNull(text: string | null): string | null {
  return text === null ? null : maskEmails(text);
}
