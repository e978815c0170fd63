import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonChunk } from './table-spec.js';

/*
 * A big window's load text kept in a file until its load reads it (issue 36, item 12). A day of
 * 600,000 page rows is ~45 MB of JSON text that used to wait in V8's heap for the day's one
 * transaction, and V8 does not hand those pages back while DuckDB builds its copy of the rows
 * during the load: both were held at the peak. In a file, the heap holds one chunk at a time,
 * read when a destination reads `body` and dropped after its statement. A chunk can be read again:
 * the writer loads each window of a failed batch again alone, from the same chunks.
 */

let folder: string | undefined;
let written = 0;

// A chunk's file lives as long as the chunk can still be read; the folder goes when the process exits.
const files = new FinalizationRegistry<string>((path) => rmSync(path, { force: true }));

/** The process's folder of spilled chunks (made on first use, removed at exit). */
export function spillFolder(): string {
  if (folder === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'mintlify-etl-chunks-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    folder = made;
  }
  return folder;
}

/** A JSON chunk whose text is in a file: `body` reads it each time it is asked for. */
class SpilledChunk implements JsonChunk {
  readonly rows: number;
  readonly #path: string;

  constructor(rows: number, body: string) {
    this.rows = rows;
    this.#path = join(spillFolder(), `${String(process.pid)}-${String(++written)}.json`);
    writeFileSync(this.#path, body, 'utf8');
    files.register(this, this.#path);
  }

  get body(): string {
    // JSON text writes a lone surrogate as an escape: it is well-formed, so UTF-8 keeps it exactly.
    return readFileSync(this.#path, 'utf8');
  }
}

/**
 * `chunk` with its text moved to a file, or `chunk` itself when the temporary folder cannot take
 * it (read-only, full): the day then waits in memory, as it did before, rather than failing.
 */
export function spilledChunk(chunk: JsonChunk): JsonChunk {
  try {
    return new SpilledChunk(chunk.rows, chunk.body);
  } catch {
    return chunk;
  }
}
