import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InternalError } from '../errors.js';
import { splitArgs } from './sql-args.js';

/*
 * Partials: a piece of SQL that several files under sql/ share (a list of columns, a CTE), written
 * once in sql/partials/NAME.sql and included where a file says `{{> NAME }}`. Arguments fill the
 * partial's placeholders: `{{> period_days(grain = 'week', start = week_start) }}` replaces
 * `{{ grain }}` and `{{ start }}` in it with those pieces of SQL, as text. A tag alone on its line
 * takes that line, each line of the partial indented as the tag is (so the rendered file reads
 * as if written out); elsewhere it stands for the partial's text on one line.
 *
 * A partial's opening comment lines describe it and are not included. A partial is text, included before any fragment is filled in, so it may name fragments and
 * other partials. An unknown partial, an argument it never uses, or a partial that includes itself
 * (directly or through others) is a packaging bug, found by the test that renders every file.
 */

/** A partial's text and the file it comes from, or undefined when there is none of that name. */
export type PartialSource = (name: string) => { readonly text: string; readonly file: string } | undefined;

/** The partials of the sql/ folder a file sits in (sql/schema/x.sql -> sql/partials/NAME.sql). */
export function partialsBeside(file: string): PartialSource {
  const dir = join(dirname(dirname(file)), 'partials');
  return (name) => {
    const path = join(dir, `${name}.sql`);
    return existsSync(path) ? { text: readFileSync(path, 'utf8'), file: path } : undefined;
  };
}

const CALL = String.raw`\{\{>\s*([a-z_]+)\s*(?:\(([\s\S]*?)\))?\s*\}\}`;
/** A tag alone on its line (groups 1-3: indent, name, arguments), or anywhere (groups 4-5). */
const TAG = new RegExp(String.raw`^([ \t]*)${CALL}[ \t]*$|${CALL}`, 'gm');

/** `sql` with every partial included, recursively; `file` names the text in errors. */
export function includePartials(sql: string, file: string, partials: PartialSource): string {
  return expand(sql, file, partials, []);
}

function expand(sql: string, file: string, partials: PartialSource, chain: readonly string[]): string {
  return sql.replace(TAG, (...m: Array<string | undefined>) => {
    const [, indent, lineName, lineArgs, name, args] = m;
    if (lineName === undefined) return partialText(name as string, args, file, partials, chain).trim();
    const text = partialText(lineName, lineArgs, file, partials, chain).replace(/\n+$/, '');
    return text
      .split('\n')
      .map((l) => (l === '' ? l : `${indent ?? ''}${l}`))
      .join('\n');
  });
}

/** One partial's text, its placeholders filled and its own partials included. */
function partialText(
  name: string,
  args: string | undefined,
  file: string,
  partials: PartialSource,
  chain: readonly string[],
): string {
  if (chain.includes(name))
    throw new InternalError(
      `${file}: the partial ${name} includes itself (${[...chain, name].join(' > ')})`,
      {
        file,
        name,
      },
    );
  const partial = partials(name);
  if (partial === undefined)
    throw new InternalError(`${file}: unknown SQL partial {{> ${name} }}`, { file, name });
  // The comment lines a partial opens with say what it is for; the files including it say the rest.
  let text = partial.text.replace(/^(?:[ \t]*--.*\n)+/, '');
  for (const [key, value] of namedArgs(args, file, name)) {
    const placeholder = new RegExp(`\\{\\{\\s*${key}\\s*\\}\\}`, 'g');
    if (text.search(placeholder) < 0)
      throw new InternalError(`${file}: the partial ${name} has no {{ ${key} }} to fill`, {
        file,
        name,
        key,
      });
    text = text.replace(placeholder, () => value);
  }
  return expand(text, partial.file, partials, [...chain, name]);
}

/** `a = sql, b = sql` as pairs; each argument must be named. */
function namedArgs(args: string | undefined, file: string, name: string): Array<[string, string]> {
  if (args === undefined) return [];
  return splitArgs(args).map((arg) => {
    const m = /^([a-z_][a-z0-9_]*)\s*=\s*([\s\S]+)$/.exec(arg);
    if (!m)
      throw new InternalError(`${file}: the arguments of {{> ${name} }} are name = sql, got: ${arg}`, {
        file,
        name,
      });
    return [m[1] as string, m[2] as string];
  });
}
