import type { EventColumn, JsonChunk } from '../table-spec.js';

/**
 * COPY's text format for the rows the streams hand over as JSON chunks: one line per row, fields
 * separated by tabs, `\N` for NULL, backslash escapes for backslash, tab, newline and carriage
 * return. A chunk is parsed and turned into text on its own, so a big window is never held twice.
 */

/** A column as the encoder needs it: its JSON field, DuckDB type name, and JSON shape (lists of structs). */
export type CopyColumn = Pick<EventColumn, 'name' | 'type' | 'json'>;

const NULL_FIELD = '\\N';
const SPECIAL = /[\\\t\n\r\0\ud800-\udfff]/;
const ESCAPED = /[\\\t\n\r]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A string no PostgreSQL text column can hold (NUL, an unpaired surrogate). The streams' rows never
 * hold one: they became U+FFFD when the rows were written as JSON (storable-text.ts), on the way
 * to either destination. Finding one here is a bug, and the COPY stops rather than store
 * something DuckDB does not.
 */
function unstorable(s: string): string | undefined {
  if (s.includes('\0')) return 'holds U+0000 (NUL), which PostgreSQL text cannot store';
  if (!s.isWellFormed()) return 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot store';
  return undefined;
}

function refuse(column: string, why: string): never {
  throw new Error(`column ${column}: a value ${why}`);
}

/** One string as a COPY text field (escaped), refusing what PostgreSQL cannot store. */
export function textField(s: string, column = 'value'): string {
  if (!SPECIAL.test(s)) return s;
  const why = unstorable(s);
  if (why !== undefined) refuse(column, why);
  return s.replace(ESCAPED, (c) => ESCAPES[c] ?? c);
}

/** A JSON value kept to the shape DuckDB's JSON reader gives it (missing fields NULL, others dropped). */
function shaped(v: unknown, shape: unknown, column: string): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(shape)) return Array.isArray(v) ? v.map((x) => shaped(x, shape[0], column)) : null;
  if (typeof shape === 'object' && shape !== null) {
    if (typeof v !== 'object' || Array.isArray(v)) return null;
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, shaped(o[k], s, column)]));
  }
  if (typeof v === 'string') {
    const why = unstorable(v);
    if (why !== undefined) refuse(column, why);
    return v;
  }
  if (shape === 'VARCHAR' && (typeof v === 'number' || typeof v === 'boolean')) return String(v);
  return v;
}

/** How one column's JSON value becomes its COPY field. */
export function encoderFor(c: CopyColumn): (v: unknown) => string {
  if (c.json !== undefined) {
    const shape = JSON.parse(c.json) as unknown;
    return (v) => {
      const s = shaped(v, shape, c.name);
      return s === null ? NULL_FIELD : textField(JSON.stringify(s), c.name);
    };
  }
  const varchar = c.type === 'VARCHAR';
  return (v) => {
    if (v === null || v === undefined) return NULL_FIELD;
    if (typeof v === 'string') return textField(v, c.name);
    if (typeof v === 'boolean') return varchar ? String(v) : v ? 't' : 'f';
    if (typeof v === 'number') return String(v);
    return textField(JSON.stringify(v), c.name);
  };
}

/** A chunk's rows as COPY lines, each starting with `prefix` (the window's own fields, already escaped, tab-ended). */
export function chunkLines(
  chunk: JsonChunk,
  columns: readonly CopyColumn[],
  encoders: readonly ((v: unknown) => string)[],
  prefix: string,
  byColumn: boolean,
): string {
  const parsed = JSON.parse(chunk.body) as Record<string, unknown>[] | Record<string, unknown[]>;
  const last = columns.length - 1;
  let out = '';
  if (byColumn) {
    const lists = columns.map((c) => (parsed as Record<string, unknown[]>)[c.name] ?? []);
    for (let i = 0; i < chunk.rows; i++) {
      out += prefix;
      for (let j = 0; j <= last; j++) {
        out += (encoders[j] as (v: unknown) => string)((lists[j] as unknown[])[i]);
        out += j === last ? '\n' : '\t';
      }
    }
    return out;
  }
  for (const row of parsed as Record<string, unknown>[]) {
    out += prefix;
    for (let j = 0; j <= last; j++) {
      out += (encoders[j] as (v: unknown) => string)(row[(columns[j] as CopyColumn).name]);
      out += j === last ? '\n' : '\t';
    }
  }
  return out;
}

/** A window's own fields (project, day...) as the start of each of its lines. */
export function linePrefix(fields: readonly (string | number | null)[]): string {
  return fields.map((f) => (f === null ? NULL_FIELD : textField(String(f)))).join('\t') + '\t';
}

/**
 * A count as bigint text, the way DuckDB's loader binds it (BigInt of the double): String() of a
 * number past 2^53 gives its shortest spelling, which is another integer.
 */
export function bigintText(n: number | null): string | null {
  return n === null ? null : BigInt(n).toString();
}
