import { InternalError } from '../errors.js';
import { EMAIL_PATTERN, EMAIL_TOKEN } from '../util/personal-data.js';
import { questionSeparators } from '../util/question-key.js';
import { splitArgs } from './sql-args.js';
import type { FunctionHead, SqlDialect } from './sql-dialect.js';
import { includePartials, partialsBeside, type PartialSource } from './sql-partials.js';

export { splitArgs };

/*
 * The SQL files under sql/ are one text for every destination. Where the destinations differ, a
 * file names a fragment, and this fills it in for the destination it is applied to:
 *
 *   {{ name }}                      a fragment without arguments (`{{ email_pattern }}`)
 *   {{ name(arg, arg) }}            one with arguments, each a piece of SQL (`{{ int_div(d, 7) }}`)
 *   {{# name head }} body {{/ name }}   a whole statement (`{{# scalar_function f(x text) RETURNS text }}`)
 *   {{> name }}  {{> name(a = sql, b = sql) }}   the text of sql/partials/name.sql, its `{{ a }}`
 *                                   placeholders replaced by the arguments (see sql-partials.ts)
 *
 * The fragments are the ones below, no others: an unknown name or a wrong number of arguments is a
 * packaging bug (InternalError), found by the test that renders every file for every destination.
 */

type Inline = (d: SqlDialect, args: string[]) => string;

/** Named fragments, and how many arguments each takes. */
const INLINE: Readonly<Record<string, { readonly arity: number; readonly text: Inline }>> = {
  /** Readers' e-mail addresses (src/util/personal-data.ts), for regexp_replace: the rule written once. */
  email_pattern: { arity: 0, text: () => sqlString(EMAIL_PATTERN) },
  /** What replaces them: '[email]'. */
  email_token: { arity: 0, text: () => sqlString(EMAIL_TOKEN) },
  /**
   * The text with readers' e-mail addresses shown as [email]: redact_emails' body, written out
   * where a function would otherwise call another of the tool's functions. Such a call inside a
   * function body resolves by the caller's search_path on PostgreSQL (a BI login's has no
   * `mintlify`), while built-ins always resolve.
   */
  mask_emails: {
    arity: 1,
    text: (_, [x]) =>
      `regexp_replace(${x as string}, ${sqlString(EMAIL_PATTERN)}, ${sqlString(EMAIL_TOKEN)}, 'g')`,
  },
  /** What separates the words of a question (src/util/question-key.ts), for question_key. */
  question_separators: { arity: 0, text: () => sqlString(questionSeparators()) },
  lower_all: { arity: 1, text: (d, [x]) => d.lowerAll(x as string) },
  int_div: { arity: 2, text: (d, [a, b]) => d.intDiv(a as string, b as string) },
  round_double: { arity: 2, text: (d, [x, n]) => d.roundDouble(x as string, n as string) },
  list_length: { arity: 1, text: (d, [l]) => d.listLength(l as string) },
  sources_column: { arity: 1, text: (d, [n]) => d.sourcesColumn(n as string) },
  each_source: { arity: 1, text: (d, [l]) => d.eachSource(l as string) },
  source_url: { arity: 1, text: (d, [e]) => d.sourceUrl(e as string) },
  private_schema: { arity: 0, text: (d) => d.privateSchema },
  create_schema: { arity: 1, text: (d, [n]) => d.createSchema(n as string) },
  json_column: { arity: 1, text: (d, [n]) => d.jsonColumn(n as string) },
  unique_index: {
    arity: 3,
    text: (d, [n, t, c]) => d.uniqueIndex(n as string, t as string, c as string),
  },
  row_index: { arity: 3, text: (d, [n, t, c]) => d.rowIndex(n as string, t as string, c as string) },
  rename_primary_key: {
    arity: 3,
    text: (d, [t, f, to]) => d.renamePrimaryKey(t as string, f as string, to as string),
  },
};

const BLOCK: Readonly<Record<string, (d: SqlDialect, head: string, body: string, file: string) => string>> = {
  scalar_function: (d, head, body, file) => d.scalarFunction(functionHead(head, file), body),
  table_function: (d, head, body, file) => {
    const fn = functionHead(head, file);
    const m = /^TABLE\s*\(([\s\S]*)\)$/i.exec(fn.returns);
    if (!m)
      throw new InternalError(`${file}: table_function ${fn.name} must say RETURNS TABLE (...)`, { file });
    return d.tableFunction({ ...fn, returns: '' }, (m[1] as string).trim(), body);
  },
};

const BLOCK_RE = /\{\{#\s*([a-z_]+)\s+([\s\S]*?)\}\}\n?([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;
// A fragment whose arguments hold no other fragment: nested ones are filled in innermost first.
const INLINE_RE = /\{\{\s*([a-z_]+)\s*(?:\(((?:(?!\{\{)[\s\S])*?)\))?\s*\}\}/g;

/**
 * The SQL of a file for one destination, every partial included and every fragment filled in.
 * Partials come first: they are plain text, and may name fragments themselves.
 */
export function renderSql(
  sql: string,
  file: string,
  dialect: SqlDialect,
  partials: PartialSource = partialsBeside(file),
): string {
  const whole = includePartials(sql, file, partials);
  const withBlocks = whole.replace(BLOCK_RE, (_, name: string, head: string, body: string) => {
    const block = BLOCK[name];
    if (block === undefined) throw unknown(file, name);
    return block(dialect, head.trim(), renderInline(body, file, dialect).trimEnd(), file);
  });
  const text = renderInline(withBlocks, file, dialect);
  const left = /\{\{[\s\S]*?\}\}/.exec(text);
  if (left) throw new InternalError(`${file}: a fragment the renderer cannot read: ${left[0]}`, { file });
  return text;
}

function renderInline(sql: string, file: string, dialect: SqlDialect): string {
  let text = sql;
  for (let before = ''; before !== text;) {
    before = text;
    text = renderInnermost(text, file, dialect);
  }
  return text;
}

function renderInnermost(sql: string, file: string, dialect: SqlDialect): string {
  return sql.replace(INLINE_RE, (_, name: string, args: string | undefined) => {
    const fragment = INLINE[name];
    if (fragment === undefined) throw unknown(file, name);
    const list = args === undefined ? [] : splitArgs(args);
    if (list.length !== fragment.arity)
      throw new InternalError(
        `${file}: {{ ${name} }} takes ${fragment.arity} argument(s), got ${list.length}`,
        {
          file,
          name,
        },
      );
    return fragment.text(dialect, list);
  });
}

function unknown(file: string, name: string): InternalError {
  return new InternalError(`${file}: unknown SQL fragment {{${name}}}`, { file, name });
}

/** `name(p type, ...) RETURNS rest` of a block's head. */
function functionHead(head: string, file: string): FunctionHead {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)\s+RETURNS\s+([\s\S]+)$/i.exec(head);
  if (!m)
    throw new InternalError(`${file}: a function block's head must be name(arg type, ...) RETURNS ...`, {
      file,
    });
  const params = splitArgs(m[2] as string).map((p) => {
    const [name, ...type] = p.split(/\s+/);
    return { name: name as string, type: type.join(' ') };
  });
  return { name: m[1] as string, params, returns: (m[3] as string).trim() };
}

/**
 * A standard SQL string literal. Both destinations read backslashes in it as themselves
 * (PostgreSQL with standard_conforming_strings, its default since 9.1).
 */
function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
