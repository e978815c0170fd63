import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openEventSource } from '../../src/sources/events/event-source.js';
import type { EventObject } from '../../src/sources/events/types.js';

const top = mkdtempSync(join(tmpdir(), 'mintlify-etl-evsrc-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));
const root = join(top, 'mirror');
const outside = join(top, 'outside.jsonl');

function put(rel: string, body = `{"rel":${JSON.stringify(rel)}}\n`): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), body);
}

const keys = [
  // Not an aws temporary file: no extension before the hex digits, or not 8 of them.
  '2026/11/27/11/deadbeef.0a1b2c3d',
  '2026/11/27/11/f.jsonl.0a1b2c3',
  '2026/11/27/08/a.jsonl',
  '2026/11/27/09/b.jsonl.gz',
  '2026-11-27T08:00:00Z.jsonl',
  '2026-11-27T08:00:00Z/\u{1F600}.jsonl',
  '2026-11-27T08:00:00Z/\uff5e.jsonl',
  'z.jsonl',
];
for (const k of keys) put(k);
put('.hidden.jsonl');
put('.git/config');
put('2026/11/27/10/c.jsonl.partial');
put('2026/11/27/10/d.jsonl.tmp');
// `aws s3 sync` downloads into NAME.<8 hex digits> and renames it when whole.
put('2026/11/27/10/e.jsonl.3fA9b0C1');
put('2026-11-27T09:00:00.000Z.jsonl.0a1B2c3D');
writeFileSync(outside, 'secret\n');
symlinkSync(outside, join(root, 'link-out.jsonl'));
symlinkSync(join(root, 'z.jsonl'), join(root, 'link-in.jsonl'));
symlinkSync(top, join(root, 'dir-link'));

async function listed(startAfter?: string): Promise<EventObject[]> {
  const source = await openEventSource(root);
  const out: EventObject[] = [];
  for await (const o of source.list(startAfter)) out.push(o);
  source.close();
  return out;
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('a local folder as the event source', () => {
  it('is labelled by its file URL, relative paths made absolute', async () => {
    const source = await openEventSource(relative(process.cwd(), root));
    expect(source.label).toBe(`${pathToFileURL(root).href}/`);
    source.close();
  });

  it('lists relative posix keys in UTF-8 byte order, skipping dotfiles, partial downloads and links out', async () => {
    const expected = [...keys, 'link-in.jsonl'].sort(byBytes);
    expect((await listed()).map((o) => o.key)).toEqual(expected);
  });

  it('lists only keys after startAfter, whatever folders it skips', async () => {
    const all = [...keys, 'link-in.jsonl'].sort(byBytes);
    for (const [i, start] of [...all.entries(), [-1, '2026/11/27/08'] as const, [-1, '2026/11/3'] as const]) {
      const want = all.filter((k) => byBytes(k, start) > 0);
      expect(
        (await listed(start)).map((o) => o.key),
        `${i} ${start}`,
      ).toEqual(want);
    }
  });

  it('gives size and an etag that changes with the file', async () => {
    const before = (await listed()).find((o) => o.key === 'z.jsonl')!;
    expect(before.size).toBe(Buffer.byteLength('{"rel":"z.jsonl"}\n'));
    utimesSync(join(root, 'z.jsonl'), new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const after = (await listed()).find((o) => o.key === 'z.jsonl')!;
    expect(after.etag).toBe(`${after.size}-${Date.parse('2026-01-01T00:00:00Z')}`);
    expect(after.etag).not.toBe(before.etag);
  });

  it('opens an object as a byte stream and counts requests', async () => {
    const source = await openEventSource(root);
    const objects: EventObject[] = [];
    for await (const o of source.list()) objects.push(o);
    const body = await source.open(objects.find((o) => o.key === '2026/11/27/08/a.jsonl')!);
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('{"rel":"2026/11/27/08/a.jsonl"}\n');
    expect(source.stats).toEqual({ listRequests: 1, getRequests: 1 });
    source.close();
  });

  it('refuses to open a key outside the folder', async () => {
    const source = await openEventSource(root);
    await expect(source.open({ key: '../outside.jsonl', size: 7, etag: null })).rejects.toThrow(/outside/);
    source.close();
  });

  it('refuses a folder that does not exist, or a file, with exit 2 saying so', async () => {
    await expect(openEventSource(join(top, 'nope'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(openEventSource(join(top, 'nope'))).rejects.toThrow(/does not exist/);
    await expect(openEventSource(outside)).rejects.toMatchObject({ exitCode: 2 });
    await expect(openEventSource(outside)).rejects.toThrow(/not a folder/);
  });

  it('takes a file:// URL too', async () => {
    const source = await openEventSource(pathToFileURL(root).href);
    expect(source.label).toBe(`${pathToFileURL(root).href}/`);
    source.close();
  });
});
