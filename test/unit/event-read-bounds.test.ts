import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readLines, type LineReaderOptions } from '../../src/sources/events/object-lines.js';
import { readDeadlineMs } from '../../src/sources/events/read-bounds.js';

/*
 * Each object's read is bounded: the time it may spend waiting on its store (a floor on bytes per
 * second given its listed size, on top of a base) and how far gzip may expand it (past 100 times
 * AND past 1 GiB: refused as damaged). The floors are options, so the tests use small ones.
 */

async function drain(
  body: Readable,
  opts: LineReaderOptions,
  perBatch?: () => Promise<void>,
): Promise<number> {
  let lines = 0;
  for await (const b of readLines(body, opts)) {
    lines += b.lines.length;
    await perBatch?.();
  }
  return lines;
}

/** A body that sends one byte every `ms`. */
function trickle(bytes: Buffer, ms: number): Readable {
  let at = 0;
  return new Readable({
    read() {
      setTimeout(() => this.push(at < bytes.length ? bytes.subarray(at, ++at) : null), ms);
    },
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("an object's read time", () => {
  it('is base + size / floor', () => {
    expect(readDeadlineMs(1_000_000, { minBytesPerSecond: 500_000, baseMs: 2_000 })).toBe(4_000);
    // The defaults: 30 s and 512 KiB/s, so 256 MiB may take 30 s + 512 s of waiting.
    expect(readDeadlineMs(256 * 2 ** 20)).toBe(30_000 + 512_000);
  });

  it('stops a body that trickles a byte at a time, within its bound, as too slow', async () => {
    const bytes = Buffer.from('{"a":1}\n'.repeat(200));
    const t0 = Date.now();
    const err = await drain(trickle(bytes, 10), {
      objectSize: bytes.length,
      bounds: { minBytesPerSecond: 4_000, baseMs: 100 },
    }).catch((e: unknown) => e);
    // 1,600 bytes at a byte every 10 ms would take 16 s; the bound is 0.1 + 0.4 s.
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(err).toMatchObject({ code: 'E_EVENT_OBJECT_SLOW' });
    expect((err as Error).message).toMatch(/came too slowly: 1600 byte\(s\) listed/);
  });

  it('counts only the time spent waiting on the store, not the time the load takes per batch', async () => {
    const bytes = Buffer.from('{"a":1}\n'.repeat(50));
    const body = Readable.from([bytes.subarray(0, 200), bytes.subarray(200)], { objectMode: false });
    const lines = await drain(
      body,
      { objectSize: bytes.length, batchLines: 5, bounds: { minBytesPerSecond: 1e9, baseMs: 40 } },
      () => sleep(15),
    );
    expect(lines).toBe(50);
  });
});

describe('the expansion of a gzip object', () => {
  const zeros = gzipSync(Buffer.alloc(4 * 2 ** 20));

  it('is refused as damaged past both bounds (times its size and bytes inflated)', async () => {
    const err = await drain(Readable.from([zeros]), {
      objectSize: zeros.length,
      bounds: { maxExpansion: 100, maxInflatedBytes: 2 ** 20 },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_EVENT_OBJECT_DAMAGED' });
    expect((err as Error).message).toMatch(/expands past 100 times its \d+ compressed byte\(s\)/);
  });

  it('is allowed past one bound alone: many times its size under the byte bound, or many bytes under the ratio', async () => {
    await expect(
      drain(Readable.from([zeros]), { objectSize: zeros.length, bounds: { maxInflatedBytes: 8 * 2 ** 20 } }),
    ).resolves.toBe(1);
    await expect(
      drain(Readable.from([zeros]), {
        objectSize: zeros.length,
        bounds: { maxInflatedBytes: 2 ** 20, maxExpansion: 100_000 },
      }),
    ).resolves.toBe(1);
  });
});
