import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { eventObjects } from '../../src/emulator/events/index.js';

/**
 * A local folder of the emulator's event stream for the events benchmark, every object written
 * UNcompressed (DuckDB's read_json reads the same files), optionally with the first objects joined
 * into one big object (a delivery of 100+ MB must stream through the loader, never sit whole).
 */
export interface EventFolderOptions {
  /** eventObjects' scale: about 3,400 distinct events (~1.9 MB uncompressed) per unit over 14 days. */
  readonly scale: number;
  /** Join the first objects into one of at least this many bytes (0: every object as generated). */
  readonly bigObjectBytes?: number;
}

export interface EventFolder {
  readonly dir: string;
  readonly objects: number;
  readonly bytes: number;
  /** Distinct events of the folder (sum of eventObjects' newEvents, each id counted once). */
  readonly events: number;
  readonly biggestBytes: number;
}

const DAYS = 14;
/** A fixed end day: the same options make the same bytes whatever the date. */
const END_DAY = '2026-11-01';

/** Appends objects' bodies to one file, a newline between them when a body lacks its last one. */
class ObjectFile {
  readonly #fd: number;
  bytes = 0;
  #endsWithNewline = true;
  constructor(readonly tmp: string) {
    mkdirSync(dirname(tmp), { recursive: true });
    this.#fd = openSync(tmp, 'w');
  }
  append(body: Buffer): void {
    if (body.length === 0) return;
    if (!this.#endsWithNewline) this.bytes += writeSync(this.#fd, '\n');
    this.bytes += writeSync(this.#fd, body);
    this.#endsWithNewline = body[body.length - 1] === 0x0a;
  }
  finish(path: string): void {
    closeSync(this.#fd);
    renameSync(this.tmp, path);
  }
}

/** Writes the folder object by object (never more than one object and the open file in memory). */
export function writeEventFolder(dir: string, o: EventFolderOptions): EventFolder {
  const big = o.bigObjectBytes ?? 0;
  let objects = 0;
  let bytes = 0;
  let events = 0;
  let biggest = 0;
  let joining: ObjectFile | null = big > 0 ? new ObjectFile(join(dir, '.joining.tmp')) : null;
  for (const obj of eventObjects({ seed: 29, days: DAYS, endDay: END_DAY, scale: o.scale })) {
    const body = obj.gzip ? gunzipSync(obj.body) : obj.body;
    events += obj.newEvents;
    const file = joining ?? new ObjectFile(join(dir, '.object.tmp'));
    file.append(body);
    // A joined object takes the key of the last object in it: keys still sort in time.
    if (joining === null || joining.bytes >= big) {
      file.finish(join(dir, ...obj.key.split('/')));
      objects++;
      bytes += file.bytes;
      biggest = Math.max(biggest, file.bytes);
      joining = null;
    }
  }
  if (joining !== null) throw new Error(`the stream is smaller than one object of ${big} bytes`);
  return { dir, objects, bytes, events, biggestBytes: biggest };
}
