import { describe, expect, it } from 'vitest';
import { listAhead } from '../../src/pipeline/listing-ahead.js';

/** A listing of `n` numbered items that records how far it has been pulled. */
function listing(
  n: number,
  failAt?: number,
): { items: AsyncGenerator<number>; pulled: () => number; ended: () => boolean } {
  let pulled = 0;
  let ended = false;
  async function* items(): AsyncGenerator<number> {
    try {
      for (let i = 0; i < n; i++) {
        await Promise.resolve();
        if (i === failAt) throw new Error(`listing failed at ${i}`);
        pulled++;
        yield i;
      }
    } finally {
      ended = true;
    }
  }
  return { items: items(), pulled: () => pulled, ended: () => ended };
}

/** Lets the listing run as far as it may: a macrotask after every pending microtask. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('a listing that runs ahead of its reader', () => {
  it('gives every item once, in order, and lists on while the reader waits, no further than its bound', async () => {
    const l = listing(100);
    const listed: number[] = [];
    const ahead = listAhead(l.items, 10, { onListed: (i) => listed.push(i) });
    await settle();
    expect(l.pulled()).toBe(10);
    const got: number[] = [];
    for await (const i of ahead) {
      got.push(i);
      await settle();
      // Never more than the bound waiting beyond the reader.
      expect(l.pulled() - got.length).toBeLessThanOrEqual(10);
    }
    expect(got).toEqual([...Array(100).keys()]);
    expect(listed).toEqual(got);
    await ahead.close();
  });

  it('says when the listing ended, ahead of the reader', async () => {
    const l = listing(5);
    let ended = false;
    const ahead = listAhead(l.items, 100, { onEnd: () => (ended = true) });
    await settle();
    expect(ended).toBe(true);
    const got: number[] = [];
    for await (const i of ahead) got.push(i);
    expect(got).toEqual([0, 1, 2, 3, 4]);
  });

  it('throws a listing error where the listing failed, after the items listed before it', async () => {
    const ahead = listAhead(listing(10, 3).items, 100);
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const i of ahead) got.push(i);
      })(),
    ).rejects.toThrow('listing failed at 3');
    expect(got).toEqual([0, 1, 2]);
    await ahead.close();
  });

  it('stops the listing when the reader stops early: close ends it, nothing more is pulled', async () => {
    const l = listing(1_000);
    const ahead = listAhead(l.items, 5);
    for await (const i of ahead) if (i === 2) break;
    await ahead.close();
    expect(l.ended()).toBe(true);
    const pulled = l.pulled();
    await settle();
    expect(l.pulled()).toBe(pulled);
    expect(pulled).toBeLessThan(20);
  });
});
