import { describe, expect, it } from 'vitest';
import { STREAMS } from '../../src/streams/index.js';
import { DEFAULT_STREAMS, STREAM_NAMES } from '../../src/streams/names.js';

/* The help text lists the streams from names.ts without loading them: the two lists must agree. */
describe('the stream names the help lists', () => {
  it('are the names of every stream, in the order a run lists them', () => {
    expect(STREAM_NAMES).toEqual(STREAMS.map((s) => s.name));
  });

  it('default to streams that exist', () => {
    expect(DEFAULT_STREAMS.filter((n) => !STREAM_NAMES.includes(n))).toEqual([]);
  });
});
