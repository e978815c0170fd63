/**
 * What `query` refuses on PostgreSQL before anything runs: every statement that could change the
 * transaction's mode or the session (and so let a later statement write), or act outside the
 * read-only transaction. PostgreSQL refuses writes in a READ ONLY transaction, but a `SET
 * TRANSACTION READ WRITE` sent first turns that off, a `COMMIT` leaves the transaction, and a
 * `set_config(...)` changes any setting. The server-side guard (pg-run.ts: a query runs first,
 * after which PostgreSQL refuses read-write mode) backs this up; this one gives the clear line.
 *
 * Words are matched as tokens (pg-lexer.ts): in strings, comments and quoted names they are data.
 */
import { SqlError } from '../../errors.js';
import { tokenize, type Token } from './sql-lexer.js';
import { parseStatements, type Statement } from './statements.js';

/**
 * Leading words of statements that end, start or nest a transaction, change a setting (SET,
 * RESET, SET ROLE, SET SESSION ...), reset the session, or reach outside the database (COPY
 * ... PROGRAM or to a server file, LOAD a library).
 */
const REFUSED_FIRST_WORDS = new Set([
  'BEGIN',
  'START',
  'COMMIT',
  'END',
  'ROLLBACK',
  'ABORT',
  'SAVEPOINT',
  'RELEASE',
  'PREPARE TRANSACTION',
  'SET',
  'RESET',
  'DISCARD',
  'COPY',
  'LOAD',
  'LOCK',
]);

/** Functions that change a setting, or run SQL or files through another connection or the server's disk. */
const REFUSED_FUNCTIONS = /^(?:set_config|dblink\w*|lo_import|lo_export)$/;

/** Words that refuse a DO block's body wherever they appear in it (it is code, and it can build code). */
const REFUSED_IN_BODY = /^(?:set|reset|commit|rollback|set_config|dblink\w*|lo_import|lo_export)$/;

export class RefusedStatement extends SqlError {}

function refusal(what: string): RefusedStatement {
  return new RefusedStatement(
    `${what} is refused before anything ran: query runs your SQL in a read-only transaction that is rolled back, and a statement that can change the transaction or the session (SET, RESET, BEGIN, COMMIT, ROLLBACK, SAVEPOINT, set_config(), COPY, a DO block doing these) could leave it; run such SQL with psql or your own client`,
    { refused: what },
  );
}

/** The refused leading words of a statement (one or two words), or undefined. */
function refusedLead(s: Statement): string | undefined {
  const words: string[] = [];
  for (const t of s.tokens) {
    if (t.kind === 'word') words.push(t.value.toUpperCase());
    else if (!(t.kind === 'other' && t.value === '(' && words.length === 0)) break;
    if (words.length === 2) break;
  }
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (first === 'PREPARE') return second === 'TRANSACTION' ? 'PREPARE TRANSACTION' : undefined;
  if (!REFUSED_FIRST_WORDS.has(first)) return undefined;
  return first === 'SET' || first === 'RESET' || first === 'START' ? words.join(' ') : first;
}

/** A function name anywhere in the tokens (unquoted, quoted or U&-escaped: all name the same function). */
function refusedName(tokens: readonly Token[], rule: RegExp): string | undefined {
  for (const t of tokens) {
    const name = t.kind === 'word' ? t.value : t.kind === 'name' ? t.value : undefined;
    if (name !== undefined && rule.test(name)) return name;
  }
  return undefined;
}

/** A DO block's body, read as code: any refused word in it, or in a string it holds (EXECUTE '...'). */
function refusedInBody(body: string, depth = 0): string | undefined {
  const tokens = tokenize(body);
  const word = refusedName(tokens, REFUSED_IN_BODY);
  if (word !== undefined) return word;
  if (depth >= 4) return undefined;
  for (const t of tokens) {
    if (t.kind !== 'string') continue;
    const inner = refusedInBody(t.value, depth + 1);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** Why a statement is refused, or undefined. */
export function refusedPart(s: Statement): string | undefined {
  const lead = refusedLead(s);
  if (lead !== undefined) return lead;
  const fn = refusedName(s.tokens, REFUSED_FUNCTIONS);
  if (fn !== undefined) return `${fn}()`;
  const [first] = s.tokens;
  if (first?.kind === 'word' && first.value === 'do') {
    for (const t of s.tokens) {
      if (t.kind !== 'string') continue;
      const inner = refusedInBody(t.value);
      if (inner !== undefined) return `a DO block with ${inner.toUpperCase()}`;
    }
  }
  return undefined;
}

/** Throws RefusedStatement (exit 2) for the first statement of `sql` that could leave read-only mode. */
export function refuseLeavingReadOnly(sql: string): Statement[] {
  const statements = parseStatements(sql);
  for (const s of statements) {
    const why = refusedPart(s);
    if (why !== undefined) throw refusal(why);
  }
  return statements;
}
