import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { EventObjectDamagedError } from './errors.js';
import { ExpansionBound, ReadPace, type ReadBoundsOptions } from './read-bounds.js';

/**
 * The lines of one object of the stream, read as a byte stream and never held whole: a 256 MiB
 * object passes through in chunks. Gzip is known by its magic bytes (1f 8b), whatever the key
 * says, and every member of a multi-member file is read. Lines end at LF (a CR before it is
 * dropped); bytes are decoded per run of whole lines, so a chunk boundary inside a UTF-8
 * character or a line changes nothing. A line over `maxLineBytes` is counted, not kept.
 */

export interface LineReaderOptions {
  /** A longer line is counted in `tooLong` and its bytes dropped as they arrive. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /** A batch is handed out once it holds this many characters. Default 1 Mi. */
  readonly batchChars?: number;
  /**
   * ... or this many lines. Default 2000: a batch's lines, parsed events and rows are all alive at
   * once; 5000 lines and 4 Mi made the V8 heap ~20 MiB bigger and the sync's peak RSS ~45 MiB higher
   * (BENCHMARKS.md, benchmark 12).
   */
  readonly batchLines?: number;
  /**
   * The object's listed size (as stored): bounds the time its read may spend waiting on the store
   * and how far gzip may expand it (read-bounds.ts). Without it, only the expansion is bounded
   * (by the bytes read so far).
   */
  readonly objectSize?: number;
  /** The bounds' floors and limits (defaults in read-bounds.ts; small values in tests). */
  readonly bounds?: ReadBoundsOptions;
}

export interface LineBatch {
  /** Whole lines, without their line ends; blank lines included. */
  readonly lines: string[];
  /** Lines over the cap that ended in this batch (to be counted as rejected 'not-json'). */
  readonly tooLong: number;
}

export interface LineReader extends AsyncIterable<LineBatch> {
  /** Bytes read from the body so far (as stored: compressed for gzip). */
  readonly bytesRead: number;
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;
const LF = 0x0a;

/** The body's chunks, counted and paced, with gzip's bytes inflated within the expansion bound. */
async function* decoded(
  body: Readable,
  count: (n: number) => number,
  o: LineReaderOptions,
): AsyncGenerator<Buffer> {
  const pace =
    o.objectSize === undefined
      ? undefined
      : new ReadPace(o.objectSize, o.bounds ?? {}, (e) => body.destroy(e));
  const raw = (async function* () {
    const it = (body as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    for (;;) {
      const next = pace === undefined ? await it.next() : await pace.wait(it.next());
      if (next.done === true) return;
      const chunk = next.value;
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      count(b.length);
      yield b;
    }
  })();
  let head = Buffer.alloc(0);
  let next = await raw.next();
  while (!next.done && head.length + next.value.length < 2) {
    head = Buffer.concat([head, next.value]);
    next = await raw.next();
  }
  if (!next.done) head = Buffer.concat([head, next.value]);
  if (head.length < 2 || head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
    if (head.length > 0) yield head;
    yield* raw;
    return;
  }
  const compressed = (): number => Math.max(o.objectSize ?? 0, count(0));
  yield* gunzipped(head, raw, new ExpansionBound(compressed, o.bounds ?? {}));
}

async function* gunzipped(
  head: Buffer,
  rest: AsyncIterable<Buffer>,
  bound: ExpansionBound,
): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  const source = (async function* () {
    yield head;
    yield* rest;
  })();
  pipeline(source, gunzip, () => {});
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      bound.add(chunk.length);
      yield chunk;
    }
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('Z_')) {
      throw new EventObjectDamagedError(
        `a gzip object is damaged: ${(e as Error).message}`,
        {},
        { cause: e },
      );
    }
    throw e;
  } finally {
    gunzip.destroy();
  }
}

/** Reads `body` as lines in batches. Breaking out of the loop destroys the body. */
export function readLines(body: Readable, opts: LineReaderOptions = {}): LineReader {
  let bytesRead = 0;
  const o = {
    maxLineBytes: opts.maxLineBytes ?? 64 * 2 ** 20,
    batchChars: opts.batchChars ?? 2 ** 20,
    batchLines: opts.batchLines ?? 2000,
  };
  return {
    get bytesRead() {
      return bytesRead;
    },
    [Symbol.asyncIterator]: () =>
      batches(
        decoded(body, (n) => (bytesRead += n), opts),
        body,
        o,
      ),
  };
}

interface Limits {
  readonly maxLineBytes: number;
  readonly batchChars: number;
  readonly batchLines: number;
}

async function* batches(chunks: AsyncIterable<Buffer>, body: Readable, o: Limits): AsyncGenerator<LineBatch> {
  const split = new LineSplitter(o.maxLineBytes);
  let lines: string[] = [];
  let chars = 0;
  try {
    for await (const chunk of chunks) {
      for (const line of split.push(chunk)) {
        lines.push(line);
        chars += line.length;
      }
      // Full batches by count; by size, all that is there (a few long lines).
      while (lines.length >= o.batchLines) {
        const batch = lines.splice(0, o.batchLines);
        chars = lines.reduce((n, l) => n + l.length, 0);
        yield { lines: batch, tooLong: split.takeTooLong() };
      }
      if (chars >= o.batchChars) {
        yield { lines, tooLong: split.takeTooLong() };
        lines = [];
        chars = 0;
      }
    }
    lines.push(...split.end());
    const tooLong = split.takeTooLong();
    for (let i = 0; i < lines.length || (i === 0 && tooLong > 0); i += o.batchLines) {
      yield { lines: lines.slice(i, i + o.batchLines), tooLong: i === 0 ? tooLong : 0 };
    }
  } finally {
    body.destroy();
  }
}

/** Cuts bytes into lines; keeps the unfinished line's bytes (at most maxLineBytes of them). */
class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line over the cap: its bytes are dropped until its end. */
  private skipping = false;
  tooLong = 0;

  constructor(private readonly maxLineBytes: number) {}

  takeTooLong(): number {
    const n = this.tooLong;
    this.tooLong = 0;
    return n;
  }

  push(chunk: Buffer): string[] {
    const first = chunk.indexOf(LF);
    if (first === -1) {
      this.hold(chunk);
      return [];
    }
    const out: string[] = [];
    this.hold(chunk.subarray(0, first));
    this.flushPending(out);
    const last = chunk.lastIndexOf(LF);
    if (last > first) this.wholeLines(chunk.subarray(first + 1, last), out);
    this.hold(chunk.subarray(last + 1));
    return out;
  }

  end(): string[] {
    const out: string[] = [];
    if (this.pendingBytes > 0 || this.skipping) this.flushPending(out);
    return out;
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.skipping) return;
    if (this.pendingBytes + bytes.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private flushPending(out: string[]): void {
    if (this.skipping) {
      this.tooLong++;
      this.skipping = false;
    } else {
      const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
      out.push(dropCr(bytes.toString('utf8')));
    }
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Bytes holding whole lines (no LF at either end): one decode, one split. */
  private wholeLines(bytes: Buffer, out: string[]): void {
    const checkEach = bytes.length > this.maxLineBytes;
    for (const line of bytes.toString('utf8').split('\n')) {
      if (checkEach && Buffer.byteLength(line) > this.maxLineBytes) this.tooLong++;
      else out.push(dropCr(line));
    }
  }
}

function dropCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 0x0d ? line.slice(0, -1) : line;
}
