/**
 * The user's SQL split into PostgreSQL statements, so that `query` can run them one at a time
 * (each through the extended protocol, which takes exactly one statement: a split this lexer got
 * wrong fails, it never runs two statements as one) and stream the last one through a cursor.
 */

/** Where the quoted text starting at `i` ends (the index after its closing quote). */
function quotedEnd(sql: string, i: number, quote: string, backslash: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslash && c === '\\') j += 2;
    else if (c === quote && sql[j + 1] === quote) j += 2;
    else if (c === quote) return j + 1;
    else j++;
  }
  return j;
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

const DOLLAR_TAG = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;
const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/** The index after the token starting at `i` that is not a statement separator. */
function skipToken(sql: string, i: number): number {
  const c = sql[i] ?? '';
  const prev = i > 0 ? (sql[i - 1] ?? '') : '';
  if (c === "'") return quotedEnd(sql, i, "'", /[eE]/.test(prev) && !IDENT_CHAR.test(sql[i - 2] ?? ''));
  if (c === '"') return quotedEnd(sql, i, '"', false);
  if (sql.startsWith('--', i)) {
    const nl = sql.indexOf('\n', i);
    return nl < 0 ? sql.length : nl + 1;
  }
  if (sql.startsWith('/*', i)) return commentEnd(sql, i);
  if (c === '$' && !IDENT_CHAR.test(prev)) {
    const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))?.[0];
    if (tag !== undefined) {
      const close = sql.indexOf(tag, i + tag.length);
      return close < 0 ? sql.length : close + tag.length;
    }
  }
  return i + 1;
}

/** Whether a statement holds nothing but blanks and comments. */
export function isBlank(statement: string): boolean {
  return leadingWords(statement, 1).length === 0;
}

/** The statements of `sql` (separated by `;` outside quotes, comments and dollar quotes), blank ones left out. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    if (sql[i] === ';') {
      out.push(sql.slice(start, i));
      start = i + 1;
      i++;
    } else i = skipToken(sql, i);
  }
  out.push(sql.slice(start));
  return out.filter((s) => !isBlank(s));
}

/** The first `n` words of a statement, upper case, after blanks, comments and opening parentheses. */
export function leadingWords(statement: string, n: number): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < statement.length && words.length < n) {
    const rest = statement.slice(i);
    const word = /^[A-Za-z_]+/.exec(rest)?.[0];
    if (word !== undefined) {
      words.push(word.toUpperCase());
      i += word.length;
    } else if (/^[\s(]/.test(rest) || rest.startsWith('--') || rest.startsWith('/*')) {
      i = /^[\s(]/.test(rest) ? i + 1 : skipToken(statement, i);
    } else break;
  }
  return words;
}

/** Statements a cursor can run: their rows are fetched in batches instead of all at once. */
export function isCursorQuery(statement: string): boolean {
  const [first] = leadingWords(statement, 1);
  return first === 'SELECT' || first === 'VALUES' || first === 'TABLE' || first === 'WITH';
}

/**
 * Statements that would end (or leave) the read-only transaction `query` runs in, after which a
 * following statement could write: COMMIT, END, ROLLBACK, ABORT, PREPARE TRANSACTION.
 */
export function endsTransaction(statement: string): boolean {
  const [first, second] = leadingWords(statement, 2);
  return (
    first === 'COMMIT' ||
    first === 'END' ||
    first === 'ROLLBACK' ||
    first === 'ABORT' ||
    (first === 'PREPARE' && second === 'TRANSACTION')
  );
}
