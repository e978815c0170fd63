import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readLines, type LineReaderOptions } from '../../src/sources/events/object-lines.js';

/** A stream that hands out `bytes` cut at the given sizes (a cut may fall inside a character or a line). */
function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts, { objectMode: false });
}

async function all(body: Readable, opts?: LineReaderOptions) {
  const reader = readLines(body, opts);
  const lines: string[] = [];
  let tooLong = 0;
  let batches = 0;
  for await (const b of reader) {
    lines.push(...b.lines);
    tooLong += b.tooLong;
    batches++;
  }
  return { lines, tooLong, batches, bytesRead: reader.bytesRead };
}

const wild = [
  '{"a":"é→😀 \\u0000 \\ud800"}',
  '',
  '{"b":"' + 'ü'.repeat(30_000) + '"}',
  '   ',
  '{"c":"日本語テキスト"}',
];

describe('readLines', () => {
  it('splits LF and CRLF lines and keeps a last line without a newline', async () => {
    const text = 'one\r\ntwo\n\nthree\r\nfour';
    expect((await all(chunked(Buffer.from(text), 1000))).lines).toEqual(['one', 'two', '', 'three', 'four']);
    expect((await all(chunked(Buffer.from('one\ntwo\n'), 1000))).lines).toEqual(['one', 'two']);
  });

  it('gives the same lines whatever the chunk boundaries, inside a UTF-8 character or a line', async () => {
    const bytes = Buffer.from(wild.join('\r\n'));
    for (const size of [1, 2, 3, 5, 7, 4096, 65_536]) {
      expect((await all(chunked(bytes, size))).lines, `chunks of ${size}`).toEqual(wild);
    }
  });

  it('reads gzip by its magic bytes whatever the name, several members too, magic split over chunks', async () => {
    const a = gzipSync(Buffer.from(wild.slice(0, 2).join('\n') + '\n'));
    const b = gzipSync(Buffer.from(wild.slice(2).join('\n')));
    const both = Buffer.concat([a, b]);
    for (const size of [1, 3, 100_000]) {
      const r = await all(chunked(both, size));
      expect(r.lines, `chunks of ${size}`).toEqual(wild);
      expect(r.bytesRead).toBe(both.length);
    }
  });

  it('counts the bytes read from the body', async () => {
    const bytes = Buffer.from(wild.join('\n'));
    expect((await all(chunked(bytes, 7))).bytesRead).toBe(bytes.length);
  });

  it('reads an empty body as no lines', async () => {
    expect(await all(Readable.from([]))).toMatchObject({ lines: [], tooLong: 0, bytesRead: 0 });
  });

  it('counts a line over the cap without keeping it, and reads on', async () => {
    const long = 'x'.repeat(5000);
    const text = `short\n${long}\nafter\r\n${long}`;
    for (const size of [100, 1 << 20]) {
      const r = await all(chunked(Buffer.from(text), size), { maxLineBytes: 1000 });
      expect(r.lines, `chunks of ${size}`).toEqual(['short', 'after']);
      expect(r.tooLong).toBe(2);
    }
  });

  it('hands lines out in bounded batches', async () => {
    const text = Array.from({ length: 2500 }, (_, i) => `line ${i}`).join('\n');
    const r = await all(chunked(Buffer.from(text), 4096), { batchLines: 1000 });
    expect(r.lines).toHaveLength(2500);
    expect(r.batches).toBe(3);
    // By size: a batch goes out once it holds batchChars, so it is at most that plus one chunk.
    const sizes: number[] = [];
    for await (const b of readLines(chunked(Buffer.from(text), 256), { batchChars: 1000 })) {
      sizes.push(b.lines.reduce((n, l) => n + l.length, 0));
    }
    expect(sizes.length).toBeGreaterThan(15);
    expect(Math.max(...sizes)).toBeLessThan(1000 + 256);
  });

  it('destroys the body when the reader stops early', async () => {
    const body = chunked(Buffer.from('a\nb\nc\n'.repeat(10_000)), 100);
    for await (const b of readLines(body, { batchLines: 10 })) {
      expect(b.lines).toHaveLength(10);
      break;
    }
    expect(body.destroyed).toBe(true);
  });

  it('refuses a damaged gzip object with a coded error', async () => {
    const gz = gzipSync(Buffer.from('{"a":1}\n'.repeat(1000)));
    await expect(all(chunked(gz.subarray(0, gz.length - 30), 64))).rejects.toMatchObject({
      code: 'E_EVENT_OBJECT_DAMAGED',
    });
  });

  it('streams a 256 MiB object: never more than a few MiB read ahead of the lines handed out', async () => {
    const line = Buffer.from(`${JSON.stringify({ eventType: 'x', payload: { v: 'y'.repeat(1000) } })}\n`);
    const chunk = Buffer.concat(Array.from({ length: 64 }, () => line)); // ~64 KiB
    const total = 256 * 2 ** 20;
    let produced = 0;
    const body = new Readable({
      read() {
        if (produced >= total) return void this.push(null);
        produced += chunk.length;
        this.push(chunk);
      },
    });
    let consumedBytes = 0;
    let worstAhead = 0;
    for await (const b of readLines(body)) {
      for (const l of b.lines) consumedBytes += l.length + 1;
      worstAhead = Math.max(worstAhead, produced - consumedBytes);
    }
    expect(consumedBytes).toBe(produced);
    expect(produced).toBeGreaterThanOrEqual(total);
    expect(worstAhead).toBeLessThan(16 * 2 ** 20);
  });
});
