import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { userFileError } from './file-errors.js';
import { specialKind } from './regular-file.js';

export interface SmallFileOptions {
  /** What the user gave, for the messages: `--rules rules.json`. */
  readonly subject: string;
  /** The largest file read, in bytes. */
  readonly maxBytes: number;
  /** What the file is, for the size refusal: `a rules file`. */
  readonly what: string;
  /** What to give instead, for the refusals: `give a JSON file`. */
  readonly advice: string;
}

/**
 * The text of a small file the user points the tool at (a rules file): a regular file only, at
 * most `maxBytes`, a UTF-8 byte order mark dropped. Opened without blocking and checked before
 * reading: a FIFO would block the process forever and a device such as /dev/zero never ends
 * (`alerts --rules /dev/zero` grew to 8.5 GB). The read stops at the cap even if the file grows.
 */
export function readSmallFile(path: string, o: SmallFileOptions): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(`${o.subject} does not exist: ${o.advice}`, { path }, { cause: e });
    }
    throw userFileError(e, o.subject, 'read', path) ?? e;
  }
  try {
    const stat = fstatSync(fd);
    const kind = specialKind(stat);
    if (kind !== undefined) {
      throw new UsageError(`${o.subject} is a ${kind}, not a regular file: ${o.advice}`, { path, kind });
    }
    const buf = Buffer.alloc(Math.min(stat.size, o.maxBytes) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buf.length) break;
    }
    if (n > o.maxBytes || stat.size > o.maxBytes) {
      throw new UsageError(
        `${o.subject} is ${mib(Math.max(n, stat.size))}: ${o.what} is at most ${mib(o.maxBytes)}`,
        { path, size: stat.size },
      );
    }
    const text = buf.toString('utf8', 0, n);
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
  } catch (e) {
    throw userFileError(e, o.subject, 'read', path) ?? e;
  } finally {
    closeSync(fd);
  }
}

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return Number.isInteger(m) ? `${m} MiB` : `${m.toFixed(1)} MiB`;
}
