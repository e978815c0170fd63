import { spilledChunk } from './spilled-chunk.js';
import { storableJson } from './storable-text.js';
import type { JsonChunk, JsonTable } from './table-spec.js';

/*
 * A window's rows as the load data every destination reads: JSON text in chunks, built by the
 * stream when the window is prepared (a few strings per window instead of thousands of objects).
 */

/** Rows per JSON text: DuckDB parses one string in one allocation, so it stays small. */
export const JSON_CHUNK_ROWS = 20_000;

/** Turns rows (objects named like the table's columns) into JSON chunks of at most JSON_CHUNK_ROWS. */
export function jsonChunks(rows: readonly object[], t: JsonTable): JsonChunk[] {
  const chunks = jsonChunkBuilder(t);
  chunks.add(rows);
  return chunks.end();
}

/** `jsonChunks` fed a page at a time: only the page's rows are objects, the rest is text. */
export interface JsonChunkBuilder {
  add(rows: readonly object[]): void;
  /** Whether a row added so far has `value` in `field` (parses the text: for rare questions). */
  includes(field: string, value: unknown): boolean;
  end(): JsonChunk[];
}

/**
 * `spill`: once the rows outgrow one chunk, each chunk's text waits for the load in a file
 * (spilled-chunk.ts): a day of hundreds of thousands of rows is not held in the heap while it is
 * loaded. A window of one chunk (nearly every day) stays in memory.
 */
export function jsonChunkBuilder(t: JsonTable, opts: { spill?: boolean } = {}): JsonChunkBuilder {
  const fields = t.columns.map(([name]) => name);
  const out: JsonChunk[] = [];
  // The current chunk as JSON arrays' insides (one list of them per column when byColumn),
  // joined once the chunk is full.
  let parts: string[][] = [];
  let rows = 0;
  const body = (): string =>
    t.byColumn === true
      ? `{${fields.map((f, i) => `${JSON.stringify(f)}:[${parts.map((p) => p[i]).join(',')}]`).join(',')}}`
      : `[${parts.map((p) => p[0]).join(',')}]`;
  const seal = (): void => {
    if (rows > 0) out.push({ rows, body: body() });
    if (opts.spill === true && out.length > 1) {
      for (const [i, c] of out.entries()) if (Object.hasOwn(c, 'body')) out[i] = spilledChunk(c);
    }
    parts = [];
    rows = 0;
  };
  return {
    add(page) {
      for (let i = 0; i < page.length;) {
        const part = page.slice(i, i + JSON_CHUNK_ROWS - rows);
        parts.push(
          t.byColumn === true
            ? fields.map((f) => storableJson(part.map((r) => (r as Record<string, unknown>)[f])).slice(1, -1))
            : [storableJson(part, fields).slice(1, -1)],
        );
        rows += part.length;
        i += part.length;
        if (rows >= JSON_CHUNK_ROWS) seal();
      }
    },
    includes(field, value) {
      const bodies = [...out.map((c) => c.body), ...(rows > 0 ? [body()] : [])];
      return bodies.some((b) => {
        const parsed = JSON.parse(b) as Record<string, unknown>[] | Record<string, unknown[]>;
        return Array.isArray(parsed)
          ? parsed.some((row) => row[field] === value)
          : (parsed[field] ?? []).includes(value);
      });
    },
    end() {
      seal();
      return out;
    },
  };
}

/** A window's rows as JSON chunks, and which row's text was longest (index into the rows). */
export interface EventChunks {
  readonly chunks: JsonChunk[];
  readonly longest: { readonly index: number; readonly chars: number };
}

/**
 * JSON text per statement: DuckDB parses one string in one allocation, and the writer runs under
 * a 32 MB memory limit, so a week of long assistant answers goes in pieces of about 1 MB.
 */
const CHUNK_CHARS = 1_000_000;

/**
 * An event window's rows as JSON chunks of about CHUNK_CHARS. The rows are built by the stream
 * with exactly the table's columns, so no key filter is applied: a replacer list would also strip
 * the fields of nested values (the title and url of assistant sources).
 */
export function eventChunks(rows: readonly object[]): EventChunks {
  const out: JsonChunk[] = [];
  const longest = { index: -1, chars: 0 };
  let part: string[] = [];
  let chars = 0;
  const flush = (): void => {
    if (part.length === 0) return;
    out.push({ rows: part.length, body: `[${part.join(',')}]` });
    part = [];
    chars = 0;
  };
  for (const [i, row] of rows.entries()) {
    const text = storableJson(row);
    if (text.length > longest.chars) Object.assign(longest, { index: i, chars: text.length });
    if (chars + text.length > CHUNK_CHARS) flush();
    part.push(text);
    chars += text.length + 1;
  }
  flush();
  return { chunks: out, longest };
}
