import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { UsageError } from '../../errors.js';
import { eventObjects, type EventStream, type EventStreamObject, type EventStreamOptions } from './stream.js';

/**
 * The marker naming every file this tool wrote into a folder. A dot-file, like the temporary
 * files: a folder source skips names beginning with a dot (as it skips `.DS_Store`).
 */
export const EVENTS_MARKER = '.mintlify-etl-events.json';

interface Marker {
  readonly writtenBy: 'mintlify-etl emulator';
  readonly keys: string[];
}

export interface WriteSummary {
  readonly objects: number;
  readonly bytes: number;
  /** Distinct events written (known for a generated stream or eventObjects; else null). */
  readonly events: number | null;
}

function safeKey(key: string): string {
  if (
    key === '' ||
    key.startsWith('/') ||
    key.split('/').some((s) => s === '..' || s === '' || s.startsWith('.'))
  ) {
    throw new UsageError(`event object key "${key}" cannot be a path inside the folder`, { key });
  }
  return key;
}

/** Writes through a dot-named temporary file in the same folder, then renames: never half a file. */
async function writeAtomic(path: string, data: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${path.slice(dirname(path).length + 1)}.tmp-${process.pid}`);
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function readMarker(dir: string): Promise<Marker | null> {
  const text = await readFile(join(dir, EVENTS_MARKER), 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (text === null) return null;
  const parsed = JSON.parse(text) as Partial<Marker>;
  return parsed.writtenBy === 'mintlify-etl emulator' && Array.isArray(parsed.keys)
    ? (parsed as Marker)
    : null;
}

/**
 * Writes the objects as files laid out like the bucket (key = relative path), each atomically,
 * one at a time (an iterable of objects never sits in memory whole). Adds to a folder: a second
 * call delivers more objects (holdBack's `held`). The marker names every key before its file exists.
 */
export async function writeEventStream(
  dir: string,
  source: EventStream | Iterable<EventStreamObject & { newEvents?: number }>,
): Promise<WriteSummary> {
  await mkdir(dir, { recursive: true });
  const keys = new Set((await readMarker(dir))?.keys ?? []);
  const objects: Iterable<EventStreamObject & { newEvents?: number }> =
    'objects' in source ? source.objects : source;
  let count = 0;
  let bytes = 0;
  let events: number | null = 'truth' in source ? source.truth.events.length : 0;
  for (const o of objects) {
    const key = safeKey(o.key);
    if (!keys.has(key)) {
      keys.add(key);
      const marker: Marker = { writtenBy: 'mintlify-etl emulator', keys: [...keys].sort() };
      await writeAtomic(join(dir, EVENTS_MARKER), `${JSON.stringify(marker, null, 1)}\n`);
    }
    await writeAtomic(join(dir, ...key.split('/')), o.body);
    count++;
    bytes += o.body.length;
    if (!('truth' in source))
      events = o.newEvents === undefined || events === null ? null : events + o.newEvents;
  }
  return { objects: count, bytes, events };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/**
 * Makes `dir` ready for a new stream: absent or empty is fine; a folder holding only files this
 * tool wrote (the marker names them) has them removed; anything else is refused, so a user's
 * files (a real mirror of the bucket, say) are never overwritten or deleted.
 */
export async function claimEventsDir(dir: string): Promise<void> {
  const info = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (info === null) return;
  if (!info.isDirectory()) throw new UsageError(`--events-out ${dir} is not a folder`, { dir });
  const files = await filesUnder(dir);
  if (files.length === 0) return;
  const marker = await readMarker(dir);
  const ours = new Set(marker?.keys ?? []);
  const isTemp = (f: string): boolean => /(^|\/)\.[^/]*\.tmp-\d+$/.test(f);
  const foreign = files.filter((f) => f !== EVENTS_MARKER && !ours.has(f) && !isTemp(f));
  if (marker === null || foreign.length > 0) {
    throw new UsageError(
      `--events-out ${dir} is not empty and holds files this tool did not write (${foreign[0] ?? files[0]}): choose a new or empty folder`,
      { dir },
    );
  }
  for (const f of files) await rm(join(dir, ...f.split('/')), { force: true });
}

/**
 * `emulator --events-out`: claims the folder (see claimEventsDir), then writes the stream object
 * by object, so any scale fits in memory.
 */
export async function writeEventsFolder(dir: string, options: EventStreamOptions): Promise<WriteSummary> {
  await claimEventsDir(dir);
  return writeEventStream(dir, eventObjects(options));
}
