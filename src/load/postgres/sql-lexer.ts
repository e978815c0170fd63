/**
 * PostgreSQL's lexical structure, as far as `query` needs it: where statements end, which words
 * are code and which are data. One tokenizer for both the statement splitter and the read-only
 * guard, so that they can never disagree about what is a string, a comment or a name.
 *
 * Where this lexer and the server could differ (a server with standard_conforming_strings off,
 * an old server's `1e'…'`), the lexer sees more code than the server, never less: a word hidden
 * from the guard would have to be inside something the lexer takes for a string or comment.
 */

export type TokenKind =
  /** An unquoted name or key word; `value` is lower case. */
  | 'word'
  /** A "quoted" or U&"quoted" name; `value` is the name, exact. */
  | 'name'
  /** A string constant of any kind ('…', E'…', U&'…', $tag$…$tag$); `value` is its body. */
  | 'string'
  | 'semicolon'
  /** Anything else: one operator character, a number, a parameter. */
  | 'other';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/** Where the quoted text starting at `i` ends (the index after its closing quote), and its body. */
function quoted(sql: string, i: number, quote: string, backslash: boolean): { end: number; body: string } {
  let j = i + 1;
  let body = '';
  while (j < sql.length) {
    const c = sql[j] ?? '';
    if (backslash && c === '\\') {
      body += sql.slice(j, j + 2);
      j += 2;
    } else if (c === quote && sql[j + 1] === quote) {
      body += quote;
      j += 2;
    } else if (c === quote) return { end: j + 1, body };
    else {
      body += c;
      j++;
    }
  }
  return { end: j, body };
}

/** Where the (nested) block comment starting at `i` ends. */
function commentEnd(sql: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < sql.length) {
    if (sql.startsWith('/*', j)) {
      depth++;
      j += 2;
    } else if (sql.startsWith('*/', j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else j++;
  }
  return j;
}

/** The index after blanks and comments from `i`. */
function skipBlank(sql: string, i: number): number {
  let j = i;
  for (;;) {
    if (/\s/.test(sql[j] ?? '')) j++;
    else if (sql.startsWith('--', j)) {
      const nl = sql.indexOf('\n', j);
      j = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', j)) j = commentEnd(sql, j);
    else return j;
  }
}

/**
 * A U&"…" name's escapes decoded (`\XXXX`, `\+XXXXXX`, a doubled escape character), with the
 * escape character a following `UESCAPE 'c'` names; returns where the name (and clause) ends.
 */
function unicodeName(sql: string, i: number): { end: number; value: string } {
  const { end, body } = quoted(sql, i + 2, '"', false);
  let after = end;
  let escape = '\\';
  const j = skipBlank(sql, end);
  if (/^uescape\b/i.test(sql.slice(j, j + 8))) {
    const k = skipBlank(sql, j + 7);
    if (sql[k] === "'") {
      const clause = quoted(sql, k, "'", false);
      escape = clause.body[0] ?? escape;
      after = clause.end;
    }
  }
  return { end: after, value: decodeUnicodeEscapes(body, escape) };
}

export function decodeUnicodeEscapes(body: string, escape: string): string {
  let out = '';
  for (let i = 0; i < body.length;) {
    if (body[i] !== escape) {
      out += body[i];
      i++;
    } else if (body[i + 1] === escape) {
      out += escape;
      i += 2;
    } else {
      const long = body[i + 1] === '+';
      const digits = body.slice(i + (long ? 2 : 1), i + (long ? 8 : 5));
      const cp = /^[0-9A-Fa-f]+$/.test(digits) ? Number.parseInt(digits, 16) : Number.NaN;
      out += Number.isNaN(cp) || cp > 0x10ffff ? escape : String.fromCodePoint(cp);
      i += Number.isNaN(cp) ? 1 : (long ? 2 : 1) + digits.length;
    }
  }
  return out;
}

/** The token starting at `i` (never at a blank or comment). */
function tokenAt(sql: string, i: number): Token {
  const c = sql[i] ?? '';
  const make = (kind: TokenKind, end: number, value = sql.slice(i, end)): Token => ({
    kind,
    value,
    start: i,
    end,
  });
  if (c === ';') return make('semicolon', i + 1);
  if (c === "'") {
    const q = quoted(sql, i, "'", false);
    return make('string', q.end, q.body);
  }
  if (c === '"') {
    const q = quoted(sql, i, '"', false);
    return make('name', q.end, q.body);
  }
  if (/[uU]/.test(c) && sql[i + 1] === '&' && (sql[i + 2] === '"' || sql[i + 2] === "'")) {
    if (sql[i + 2] === '"') {
      const u = unicodeName(sql, i);
      return make('name', u.end, u.value);
    }
    const q = quoted(sql, i + 2, "'", false);
    return make('string', q.end, q.body);
  }
  if (/[eE]/.test(c) && sql[i + 1] === "'") {
    const q = quoted(sql, i + 1, "'", true);
    return make('string', q.end, q.body);
  }
  if (/[bBxXnN]/.test(c) && sql[i + 1] === "'") {
    const q = quoted(sql, i + 1, "'", false);
    return make('string', q.end, q.body);
  }
  if (WORD_START.test(c)) {
    let j = i + 1;
    while (j < sql.length && WORD_CHAR.test(sql[j] ?? '')) j++;
    return make('word', j, sql.slice(i, j).toLowerCase());
  }
  if (c === '$') {
    const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))?.[0];
    if (tag !== undefined) {
      const close = sql.indexOf(tag, i + tag.length);
      const end = close < 0 ? sql.length : close + tag.length;
      return make('string', end, sql.slice(i + tag.length, close < 0 ? sql.length : close));
    }
  }
  if (/[0-9]/.test(c) || (c === '$' && /[0-9]/.test(sql[i + 1] ?? ''))) {
    let j = i + 1;
    while (j < sql.length && /[0-9A-Za-z_.]/.test(sql[j] ?? '')) j++;
    return make('other', j);
  }
  return make('other', i + 1);
}

/** Every token of `sql`, blanks and comments left out. */
export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = skipBlank(sql, 0);
  while (i < sql.length) {
    const t = tokenAt(sql, i);
    out.push(t);
    i = skipBlank(sql, t.end);
  }
  return out;
}
