import { InternalError } from '../../../errors.js';

/**
 * A DuckDB type name (`BIGINT`, `TIMESTAMP WITH TIME ZONE`, `STRUCT(title VARCHAR, url VARCHAR)[]`)
 * as a tree, for each engine to spell in its own words.
 */
export type DuckType =
  | { readonly kind: 'scalar'; readonly name: string }
  | { readonly kind: 'list'; readonly of: DuckType }
  | {
      readonly kind: 'struct';
      readonly fields: readonly { readonly name: string; readonly type: DuckType }[];
    };

/** Names of struct fields an engine's type syntax takes unquoted. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseDuckType(text: string): DuckType {
  const t = text.trim();
  if (t.endsWith('[]')) return { kind: 'list', of: parseDuckType(t.slice(0, -2)) };
  const struct = /^STRUCT\((.*)\)$/is.exec(t);
  if (struct !== null) {
    return {
      kind: 'struct',
      fields: splitTopLevel(struct[1] ?? '').map((field) => {
        const m = /^("(?:[^"]|"")*"|\S+)\s+(.+)$/s.exec(field.trim());
        const name = m?.[1]?.startsWith('"') === true ? m[1].slice(1, -1).replaceAll('""', '"') : m?.[1];
        if (m === null || name === undefined || !PLAIN_NAME.test(name)) {
          throw new InternalError(`export --ddl cannot spell the struct field of ${text}`, { type: text });
        }
        return { name, type: parseDuckType(m[2] ?? '') };
      }),
    };
  }
  return { kind: 'scalar', name: t.toUpperCase() };
}

/** `a INT, b STRUCT(c INT, d INT)` split at the commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/**
 * An engine's name for a DuckDB scalar type, or a loud failure: a type added to the contract must
 * be given its name in every engine before the DDL can declare it.
 */
export function scalarIn(dialect: string, names: Readonly<Record<string, string>>, type: string): string {
  const name = names[type];
  if (name === undefined) {
    throw new InternalError(`export --ddl ${dialect} has no type for DuckDB's ${type}`, { dialect, type });
  }
  return name;
}
