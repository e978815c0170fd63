/**
 * The user's SQL split into PostgreSQL statements, so that `query` can run them one at a time
 * (each through the extended protocol, which takes exactly one statement: a split this lexer got
 * wrong fails, it never runs two statements as one) and stream the last one through a cursor.
 */
import { tokenize, type Token } from './sql-lexer.js';

/** One statement: its text as given and its tokens. */
export interface Statement {
  readonly text: string;
  readonly tokens: readonly Token[];
}

/** The statements of `sql` (separated by `;` outside quotes, comments and dollar quotes), blank ones left out. */
export function parseStatements(sql: string): Statement[] {
  const out: Statement[] = [];
  let start = 0;
  let tokens: Token[] = [];
  for (const t of tokenize(sql)) {
    if (t.kind !== 'semicolon') {
      tokens.push(t);
      continue;
    }
    if (tokens.length > 0) out.push({ text: sql.slice(start, t.start), tokens });
    start = t.end;
    tokens = [];
  }
  if (tokens.length > 0) out.push({ text: sql.slice(start), tokens });
  return out;
}

/** The statements' texts (see parseStatements). */
export function splitStatements(sql: string): string[] {
  return parseStatements(sql).map((s) => s.text);
}

/** Whether a statement holds nothing but blanks and comments. */
export function isBlank(statement: string): boolean {
  return tokenize(statement).length === 0;
}

/** The first `n` words of a statement, upper case, after opening parentheses. */
export function leadingWords(statement: string | Statement, n: number): string[] {
  const tokens = typeof statement === 'string' ? tokenize(statement) : statement.tokens;
  const words: string[] = [];
  for (const t of tokens) {
    if (words.length >= n) break;
    if (t.kind === 'word') words.push(t.value.toUpperCase());
    else if (!(t.kind === 'other' && t.value === '(' && words.length === 0)) break;
  }
  return words;
}

/** Statements a cursor can run: their rows are fetched in batches instead of all at once. */
export function isCursorQuery(statement: string | Statement): boolean {
  const [first] = leadingWords(statement, 1);
  return first === 'SELECT' || first === 'VALUES' || first === 'TABLE' || first === 'WITH';
}
