import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadline } from '../../src/util/deadline.js';
import { sourceFiles, srcName } from '../helpers/source-files.js';
import { transpileForChild } from '../helpers/transpile.js';

// What the garbage collector does to a timed signal, measured in a process of its own.
const survivesGc = (make: string): string => {
  const script = `${make}
let fired = false;
signal.addEventListener('abort', () => { fired = true; });
const gc = setInterval(() => globalThis.gc(), 5);
setTimeout(() => { clearInterval(gc); process.stdout.write(fired ? 'fired' : 'never'); }, 300);`;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return r.stdout;
};

describe('a deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts when its time runs out, and says it expired', () => {
    const d = deadline(2_000);
    vi.advanceTimersByTime(1_999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect(d.expired).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("aborts with the parent's reason when the parent aborts first, without expiring", () => {
    const parent = new AbortController();
    const d = deadline(2_000, parent.signal);
    parent.abort(new Error('ctrl-c'));
    expect(d.signal.aborted).toBe(true);
    expect(d.expired).toBe(false);
    expect((d.signal.reason as Error).message).toBe('ctrl-c');
  });

  it('starts aborted under a parent that already aborted', () => {
    const parent = new AbortController();
    parent.abort();
    expect(deadline(2_000, parent.signal).signal.aborted).toBe(true);
  });

  it('never fires once disposed, and lets go of its parent', () => {
    const parent = new AbortController();
    const d = deadline(2_000, parent.signal);
    d.dispose();
    vi.advanceTimersByTime(10_000);
    parent.abort();
    expect(d.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

// Node 20's AbortSignal.any([AbortSignal.timeout(ms)]) never fires once collected (Node 24's does):
// `agent wait --timeout 2s` hung on a trickling server one run in three.
describe('timed signals under garbage collection', () => {
  it('keep a deadline firing however often the collector runs', async () => {
    const child = await transpileForChild(['src/util/deadline.ts']);
    try {
      const module = pathToFileURL(join(child.dir, 'src/util/deadline.js')).href;
      expect(
        survivesGc(`const { deadline } = await import(${JSON.stringify(module)});
const signal = deadline(50).signal;`),
      ).toBe('fired');
    } finally {
      child.cleanup();
    }
  });

  it('are made only by deadline(): no AbortSignal.timeout anywhere in src/', () => {
    const users = sourceFiles()
      .filter((f) => /AbortSignal\.timeout\(/.test(readFileSync(f, 'utf8')))
      .map(srcName);
    expect(users).toEqual([]);
  });
});
