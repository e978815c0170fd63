import { redactSecrets } from './secrets.js';
import { maskUserinfo } from './url-text.js';

/**
 * The one place output text passes before it leaves the process (log lines, error messages,
 * summaries, --json, error columns of the database): secrets redacted (after any decoding, so
 * on the final text), URL userinfo masked, control characters escaped so that a value with a
 * newline cannot split a line or forge one, and very long values shortened.
 */

/** A value longer than this is shown as its first SHOWN_CHARS characters and its length. */
export const LONG_VALUE_CHARS = 300;
export const SHOWN_CHARS = 200;
/** A last bound on one line, whatever it is made of (many short values add up too). */
export const MAX_LINE_CHARS = 10_000;

// C0 controls but the tab, DEL, C1 controls and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;
const LONG_RUN = new RegExp(`\\S{${LONG_VALUE_CHARS + 1},}`, 'g');

/** Control characters as visible escapes (`\n`, `\r`, `\u001b`). */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `value`, or its first `shown` characters and `… (N chars)` when longer than `max`. */
export function shorten(value: string, max = LONG_VALUE_CHARS, shown = SHOWN_CHARS): string {
  return value.length > max ? `${value.slice(0, shown)}… (${value.length} chars)` : value;
}

/** A value from the API (a thread id, a path) as a message may show it. */
export function untrusted(value: string): string {
  return shorten(escapeControl(redactSecrets(value)));
}

/** One line of output, safe to print or store. */
export function safeLine(text: string): string {
  const clean = escapeControl(maskUserinfo(redactSecrets(text))).replace(LONG_RUN, (run) => shorten(run));
  return shorten(clean, MAX_LINE_CHARS, MAX_LINE_CHARS);
}

/** Several lines (a plan, a table): each line made safe, the line breaks kept. */
export function safeText(text: string): string {
  return text
    .split('\n')
    .map((line) => safeLine(line))
    .join('\n');
}

/**
 * A JSON-able value made safe for --json: a deep copy (through JSON, so every value is in the
 * form a reader decodes) with every string and key redacted, userinfo masked and long values
 * shortened. Control characters are left to JSON's own escaping.
 */
export function safeJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  const fix = (s: string): string => maskUserinfo(redactSecrets(s)).replace(LONG_RUN, (run) => shorten(run));
  return mapStrings(JSON.parse(JSON.stringify(value)) as unknown, fix);
}

function mapStrings(value: unknown, fix: (s: string) => string): unknown {
  if (typeof value === 'string') return fix(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fix));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [fix(k), mapStrings(v, fix)]));
  }
  return value;
}
