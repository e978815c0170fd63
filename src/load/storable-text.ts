/**
 * Text both destinations can store. PostgreSQL's text and jsonb cannot hold U+0000, and an
 * unpaired UTF-16 surrogate (which JSON.parse accepts from "\ud800") has no UTF-8 form, so
 * DuckDB's JSON reader refuses it. Either one in a reader's comment, question or search term used
 * to fail its window on every run. Every row a stream hands to a destination becomes JSON text
 * here, once, with such characters replaced by U+FFFD (what a UTF-8 decoder shows for bytes it
 * cannot read): both destinations then store the same rows, and the window loads.
 */

/** What no stored text keeps: NUL and a surrogate without its partner. */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The two in JSON.stringify's output: it writes NUL as `\u0000` and a lone surrogate as `\udXXX`
 * (lower-case hex), and a paired one as the character itself. A literal backslash before `u0000`
 * in a value matches too: the slow path then changes nothing, at the cost of a second stringify.
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/;

export const REPLACEMENT = '\ufffd';

/** Whether `s` is stored as it is. */
export function isStorable(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** `s` with each NUL and each unpaired surrogate replaced by U+FFFD (paired ones kept). */
export function storableText(s: string): string {
  return isStorable(s) ? s : s.replaceAll('\u0000', REPLACEMENT).toWellFormed();
}

/** A deep copy of a JSON value with every string (and key) storable. */
export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    // What JSON.stringify would write for it (a Date's ISO text), made storable.
    const toJson = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof toJson === 'function') return storableValue(toJson.call(value));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableValue(v)]));
  }
  return value;
}

/**
 * `JSON.stringify(value, fields)` with every string storable: the one way rows become the JSON
 * text a prepared window carries. The common case (nothing to replace) costs one scan of the
 * text; only a value that holds such a character is copied and written again.
 */
export function storableJson(value: unknown, fields?: readonly string[]): string {
  const text = JSON.stringify(value, fields as string[] | undefined);
  return UNSTORABLE_ESCAPE.test(text)
    ? JSON.stringify(storableValue(value), fields as string[] | undefined)
    : text;
}
