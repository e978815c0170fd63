import { randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { MARKER_WITHIN_BYTES, TOOL_MARKERS } from '../report/marker.js';
import { makeFolder, onFile, userFileError } from '../util/file-errors.js';
import { specialKind } from '../util/regular-file.js';
import { databaseFiles, realTarget } from './target-path.js';

/**
 * One file a command writes for people (`report --html`, `digest --out`), under one set of rules:
 * it replaces a file this tool wrote earlier (recognised by a marker of src/report/marker.ts) but
 * no other file unless --force; never the database or its siblings, symbolic links resolved;
 * never a folder, a FIFO, a device or a socket, --force or not; and it is written atomically.
 */
export interface OutputFileSpec {
  /** The flag that named it, e.g. `--out`: every message starts with it. */
  readonly flag: string;
  /** The path as the user gave it. */
  readonly given: string;
  /** The DuckDB file the command reads, when it reads one: never to be replaced. */
  readonly db?: string | undefined;
  readonly force: boolean;
  /** What is written, for the messages: `the page`, `the digest`. */
  readonly what: string;
  /** A file name to suggest, e.g. `report.html`. */
  readonly example: string;
}

export interface OutputFile {
  /** The real path written (symbolic links resolved). */
  readonly path: string;
  /** Writes `text` atomically and says so on stderr (`wrote PATH`). */
  write(text: string): Promise<void>;
}

/**
 * Checks the target before the command does any work (a refusal costs nothing), and returns the
 * writer. The checks run again, in effect, at the rename: a rename replaces the directory entry,
 * so a FIFO or device swapped in meanwhile is replaced, never written into.
 */
export function outputFile(spec: OutputFileSpec): OutputFile {
  const path = checkTarget(spec);
  const subject = `${spec.flag} ${spec.given}`;
  return {
    path,
    write: async (text) => {
      await writeAtomically(path, text, subject);
      process.stderr.write(`wrote ${path}\n`);
    },
  };
}

function checkTarget(spec: OutputFileSpec): string {
  const { flag, given } = spec;
  const real = realTarget(given, flag);
  const existing = onFile(`${flag} ${given}`, 'read', real, () => lstatSync(real, { throwIfNoEntry: false }));
  const kind = existing === undefined ? undefined : specialKind(existing);
  if (kind === 'folder') {
    throw new UsageError(
      `${flag} ${given} is a folder: give a file name, e.g. ${join(given, spec.example)}`,
      {
        file: given,
      },
    );
  }
  if (kind !== undefined) {
    throw new UsageError(
      `${flag} ${given} is a ${kind}, not a regular file: ${spec.what} is only ever written to a regular file; choose another name`,
      { file: given, kind },
    );
  }
  // Whatever file is there gets replaced: never the database or a file it depends on, --force or not.
  const dbFile = spec.db === undefined ? undefined : databaseFileAt(spec.db, real, existing);
  if (dbFile !== undefined) {
    throw new UsageError(
      `${flag} ${given} is ${dbFile} (${spec.db ?? ''}): give ${spec.what} its own file name, e.g. ${spec.example}`,
      { file: given, db: spec.db },
    );
  }
  if (existing !== undefined && !spec.force && !writtenByUs(real, `${flag} ${given}`)) {
    throw new UsageError(
      `${flag} ${given} exists and was not written by mintlify-etl; it was left untouched: choose another file name, or pass --force to replace it`,
      { file: given },
    );
  }
  return real;
}

/** What `real` is of the database's files, by path (links resolved) or as a hard link to one. */
function databaseFileAt(db: string, real: string, existing: Stats | undefined): string | undefined {
  const files = databaseFiles(db);
  const byPath = files.get(real);
  if (byPath !== undefined || existing === undefined) return byPath;
  for (const [file, what] of files) {
    const s = statSync(file, { throwIfNoEntry: false });
    if (s !== undefined && s.dev === existing.dev && s.ino === existing.ino) return what;
  }
  return undefined;
}

/** True when the file starts like one this tool wrote (a marker near the top). */
function writtenByUs(real: string, subject: string): boolean {
  // Non-blocking: the file was a regular one a moment ago, but must not hang us if swapped for a FIFO.
  const fd = onFile(subject, 'read', real, () => openSync(real, constants.O_RDONLY | constants.O_NONBLOCK));
  try {
    const head = Buffer.alloc(MARKER_WITHIN_BYTES);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.toString('utf8', 0, n);
    return TOOL_MARKERS.some((m) => text.includes(m));
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * A reader (a browser, a web server, a mail job) never sees half a file: written to a temporary
 * file in the same folder (so the rename cannot cross a file system), which a failure removes.
 */
async function writeAtomically(file: string, text: string, subject: string): Promise<void> {
  makeFolder(dirname(file), subject);
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { encoding: 'utf8', flag: 'wx' });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw userFileError(e, subject, 'write', file) ?? e;
  }
}
