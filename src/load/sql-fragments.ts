import { InternalError } from '../errors.js';
import { EMAIL_PATTERN, EMAIL_TOKEN } from '../util/personal-data.js';
import { questionSeparators } from '../util/question-key.js';

/**
 * Named fragments the SQL files take from the TypeScript that owns a rule, so that the rule is
 * written once: a file says `{{email_pattern}}` where the view needs the pattern, and every
 * destination gets the same text when the file is applied. Each fragment is a complete SQL
 * literal. (Issue 28 renders every dialect difference the same way.)
 */
export const SQL_FRAGMENTS: Readonly<Record<string, string>> = {
  /** Readers' e-mail addresses (src/util/personal-data.ts), for regexp_replace. */
  email_pattern: sqlString(EMAIL_PATTERN),
  /** What replaces them: '[email]'. */
  email_token: sqlString(EMAIL_TOKEN),
  /** What separates the words of a question (src/util/question-key.ts), for question_key. Built on first use. */
  get question_separators(): string {
    return sqlString(questionSeparators());
  },
};

const FRAGMENT = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** The SQL of a file with its fragments filled in; an unknown name is a packaging bug. */
export function renderSql(sql: string, file: string): string {
  return sql.replace(FRAGMENT, (_, name: string) => {
    const text = SQL_FRAGMENTS[name];
    if (text === undefined)
      throw new InternalError(`${file}: unknown SQL fragment {{${name}}}`, { file, name });
    return text;
  });
}

/**
 * A standard SQL string literal. Both destinations read backslashes in it as themselves
 * (PostgreSQL with standard_conforming_strings, its default since 9.1).
 */
function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
