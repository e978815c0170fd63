import { randomBytes } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseInUseError, InternalError } from '../errors.js';

export interface Lock {
  /** The lock file: `${dbPath}.lock`. */
  readonly path: string;
  /** Deletes the lock file if it is still ours (someone may have taken over a lock they judged stale). */
  release(): Promise<void>;
}

interface LockContent {
  pid: number;
  startedAt: string;
  hostname: string;
  /** Tells our lock from a later one by the same pid (pids are reused). */
  token: string;
}

const MAX_ATTEMPTS = 20;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parse(text: string): LockContent | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockContent>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0) {
      return {
        pid: v.pid,
        startedAt: typeof v.startedAt === 'string' ? v.startedAt : 'an unknown time',
        hostname: typeof v.hostname === 'string' ? v.hostname : '',
        token: typeof v.token === 'string' ? v.token : '',
      };
    }
  } catch {
    // Garbled (a crash mid-write): treated as stale below.
  }
  return undefined;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Creates `path` with `text` only if it does not exist. Written to a temp file first and then
 * hard-linked into place (link fails if the target exists), so nobody ever reads a half-written
 * lock and mistakes it for a garbled, stale one.
 */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { flag: 'wx' });
  try {
    await link(tmp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
    // A file system without hard links: plain exclusive create (a reader may see it half-written).
    try {
      await writeFile(path, text, { flag: 'wx' });
      return true;
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e2;
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Removes a lock judged stale, holding `${path}.takeover` meanwhile: only the guard holder deletes,
 * and only after reading the lock again, so a fresh lock created by a faster process is never
 * deleted. Returns without doing anything when another process holds the guard (the caller retries).
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const guard = `${path}.takeover`;
  const mine = JSON.stringify({ pid: process.pid, token: randomBytes(8).toString('hex') });
  if (!(await createExclusive(guard, mine))) {
    const text = await readText(guard);
    const holder = text === undefined ? undefined : parse(text);
    // A guard left by a process that died during its takeover would block every later one.
    if (text !== undefined && (holder === undefined || !isAlive(holder.pid)))
      await unlink(guard).catch(() => undefined);
    await sleep(10 + Math.random() * 40);
    return;
  }
  try {
    if ((await readText(path)) === staleText) await unlink(path).catch(() => undefined);
  } finally {
    if ((await readText(guard)) === mine) await unlink(guard).catch(() => undefined);
  }
}

/**
 * Takes the exclusive lock file beside the database for the length of a sync. A lock whose process
 * is gone (or whose file is unreadable) is taken over; a live one stops us with DatabaseInUseError.
 */
export async function acquireLock(dbPath: string): Promise<Lock> {
  const path = `${dbPath}.lock`;
  const host = osHostname();
  const content: LockContent = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    hostname: host,
    token: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(content)}\n`;

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    let created: boolean;
    try {
      created = await createExclusive(path, text);
    } catch (e) {
      throw new InternalError(
        `cannot create lock file ${path}: ${(e as Error).message}`,
        { path },
        { cause: e },
      );
    }
    if (created) {
      return {
        path,
        async release(): Promise<void> {
          const current = await readText(path);
          if (current === undefined) return;
          if (parse(current)?.token === content.token) await unlink(path).catch(() => undefined);
        },
      };
    }
    const existing = await readText(path);
    if (existing === undefined) continue;
    const holder = parse(existing);
    const otherHost = holder !== undefined && holder.hostname !== '' && holder.hostname !== host;
    if (holder !== undefined && (otherHost || isAlive(holder.pid))) {
      const where = otherHost ? ` on host ${holder.hostname}` : '';
      throw new DatabaseInUseError(
        `database ${dbPath} is in use by process ${holder.pid}${where} (a sync started at ${holder.startedAt}); ` +
          `wait for it or, if it is gone, delete ${path}`,
        {
          path: dbPath,
          lockPath: path,
          pid: holder.pid,
          hostname: holder.hostname,
          startedAt: holder.startedAt,
        },
      );
    }
    await removeStale(path, existing);
  }
  throw new DatabaseInUseError(
    `could not take the lock ${path} after ${MAX_ATTEMPTS} attempts: other processes keep taking it`,
    { path: dbPath, lockPath: path },
  );
}
