import { closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, type Stats } from 'node:fs';
import { UsageError } from '../errors.js';
import { onFile } from './file-errors.js';

/** What a file that is not a regular one is, for the message that refuses it. */
export function specialKind(s: Stats): string | undefined {
  if (s.isFile()) return undefined;
  if (s.isDirectory()) return 'folder';
  if (s.isFIFO()) return 'FIFO';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'device';
  return 'special file';
}

function refuseSpecial(fd: number, path: string): void {
  const kind = specialKind(fstatSync(fd));
  if (kind === undefined) return;
  closeSync(fd);
  const remove = kind === 'folder' ? 'rmdir' : 'rm';
  throw new UsageError(
    `${path} is a ${kind}, not a regular file: remove it (${remove} "${path}") and try again`,
    {
      path,
      kind,
    },
  );
}

/**
 * The text of a file the tool keeps for itself, or undefined when there is none. Opened without
 * blocking and checked before reading: a FIFO in its place would otherwise block the process in
 * a system call that no signal can interrupt.
 */
export function readRegularFileSync(path: string, subject: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return onFile(subject, 'read', path, () => {
      throw e;
    });
  }
  refuseSpecial(fd, path);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Creates or empties a file the tool keeps for itself and returns its descriptor; the same refusals. */
export function openRegularForWriteSync(path: string, subject: string): number {
  const fd = onFile(subject, 'write', path, () =>
    openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK, 0o666),
  );
  refuseSpecial(fd, path);
  onFile(subject, 'write', path, () => {
    try {
      ftruncateSync(fd);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  });
  return fd;
}
