import { randomBytes } from 'node:crypto';
import { constants, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { hostname as osHostname, tmpdir } from 'node:os';
import { chmod, link, mkdir, open, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseInUseError, UsageError } from '../../errors.js';
import { userFileError } from '../../util/file-errors.js';
import { refuseOddSiblings } from './sibling-files.js';
import { isProcessAlive } from '../../util/process-alive.js';

export interface Lock {
  /** The lock file: `${realDbPath(dbPath)}.lock`, beside the real database file. */
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
  /** Linux: the holder's boot and start time in clock ticks since boot, which tell it from a later process with its pid. */
  bootId?: string;
  startTicks?: number;
  /** The real path of the database as the holder named it: another name of the file when it came through a hard link. */
  db?: string;
}

const MAX_ATTEMPTS = 20;

// Symlink hops followed for a database file that does not exist yet (the kernel's own limit is 40).
const MAX_LINK_HOPS = 40;

/**
 * The database file with every symlink resolved, so that two names for one file (`--db s.duckdb`
 * and `--db alias.duckdb`) share one lock and one journal. A file not created yet is resolved
 * through its folder; a dangling symlink through its target, where DuckDB will create the file.
 */
export function realDbPath(dbPath: string): string {
  let file = resolve(dbPath);
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    try {
      return realpathSync(file);
    } catch {
      // Missing (or unreadable): resolved by hand below.
    }
    let target: string;
    try {
      target = readlinkSync(file);
    } catch {
      break;
    }
    file = resolve(dirname(file), target);
  }
  try {
    return join(realpathSync(dirname(file)), basename(file));
  } catch {
    return file;
  }
}

// USER_HZ: the unit of /proc/<pid>/stat times, 100 on every mainstream Linux architecture.
const CLOCK_TICKS_PER_S = 100;

// A clock stepped forward by less than this after a lock was written cannot make its live holder
// look younger than the lock (the /proc start time is also up to a second early, never late).
const START_SLACK_MS = 10_000;

interface ProcessStart {
  bootId: string;
  ticks: number;
  /** Epoch ms, to the second. */
  ms: number;
}

/** When a process started, from /proc (Linux); undefined elsewhere, or when it cannot be read. */
function processStart(pid: number): ProcessStart | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[22 - 3]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    if (!Number.isSafeInteger(ticks) || !Number.isSafeInteger(btime) || bootId === '') return undefined;
    return { bootId, ticks, ms: btime * 1000 + (ticks * 1000) / CLOCK_TICKS_PER_S };
  } catch {
    return undefined;
  }
}

/**
 * A live pid on this host that cannot be the lock's holder: pids are reused, so after the holder
 * died (or the machine rebooted) its pid may belong to any process, which would block us forever.
 * When the lock says which process wrote it, that settles it; an older lock only has the time it
 * was written, and a process started after that cannot have written it.
 */
function pidReused(holder: LockContent): boolean {
  const live = processStart(holder.pid);
  if (live === undefined) return false;
  if (holder.bootId !== undefined && holder.startTicks !== undefined) {
    return holder.bootId !== live.bootId || holder.startTicks !== live.ticks;
  }
  const written = Date.parse(holder.startedAt);
  return Number.isFinite(written) && live.ms > written + START_SLACK_MS;
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
        ...(typeof v.bootId === 'string' && Number.isSafeInteger(v.startTicks)
          ? { bootId: v.bootId, startTicks: v.startTicks }
          : {}),
        ...(typeof v.db === 'string' ? { db: v.db } : {}),
      };
    }
  } catch {
    // Garbled (a crash mid-write): treated as stale below.
  }
  return undefined;
}

/**
 * The lock's text, or undefined when there is none. Opened without blocking and checked to be a
 * regular file: reading a FIFO put there would block the process beyond the reach of signals.
 */
async function readText(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw userFileError(e, `lock ${path}`, 'read', path) ?? e;
  }
  try {
    if (!(await handle.stat()).isFile()) {
      throw new UsageError(`${path} is not a regular file: remove it (rm "${path}") and try again`, { path });
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
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
    if (text !== undefined && (holder === undefined || !isProcessAlive(holder.pid)))
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

function ourContent(host: string, db: string): LockContent {
  const me = processStart(process.pid);
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    hostname: host,
    token: randomBytes(8).toString('hex'),
    ...(me ? { bootId: me.bootId, startTicks: me.ticks } : {}),
    db,
  };
}

/** The lock's writer may still be running: on another host (we cannot tell), or alive here and not a reused pid. */
function holds(holder: LockContent, host: string): boolean {
  const otherHost = holder.hostname !== '' && holder.hostname !== host;
  return otherHost || (isProcessAlive(holder.pid) && !pidReused(holder));
}

/**
 * Hard links give one file several real paths, so a lock named after the path is not enough: the
 * inode lock is named after the file's device and inode, in one folder every run on this machine
 * shares (sticky and world-writable like /tmp, so every user's runs meet there). Undefined while
 * the file does not exist yet (no link to it can exist either).
 */
export function inodeLockPath(dbPath: string, folder: string = inodeLockFolder()): string | undefined {
  const s = statSync(dbPath, { throwIfNoEntry: false });
  return s === undefined ? undefined : join(folder, `${s.dev}-${s.ino}.lock`);
}

function inodeLockFolder(): string {
  // Not os.tmpdir(): TMPDIR differs between users and jobs, and they must all find one lock.
  return join(process.platform === 'win32' ? tmpdir() : '/tmp', 'mintlify-etl-locks');
}

/** The shared folder of inode locks; false when this machine does not let us make it. */
async function ensureInodeLockFolder(folder: string): Promise<boolean> {
  try {
    await mkdir(folder, { mode: 0o1777 });
    await chmod(folder, 0o1777);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  return true;
}

/**
 * The sync that holds the database's lock now, if one may: what `status` needs to tell a running
 * run from one whose process died, and what a waiting reader names. Reads only.
 */
export async function syncHolder(dbPath: string): Promise<{ pid: number; startedAt: string } | undefined> {
  for (const path of [`${realDbPath(dbPath)}.lock`, inodeLockPath(dbPath)]) {
    if (path === undefined) continue;
    let text: string | undefined;
    try {
      text = await readText(path);
    } catch {
      continue;
    }
    const holder = text === undefined ? undefined : parse(text);
    if (holder !== undefined && holds(holder, osHostname()))
      return { pid: holder.pid, startedAt: holder.startedAt };
  }
  return undefined;
}

/**
 * Takes the exclusive lock of the database for the length of a sync: the lock file beside its
 * real path, and then the inode lock that every hard link to it shares. A lock whose process is
 * gone, whose pid now belongs to a later process, or whose file is unreadable is taken over; a
 * live one stops us with DatabaseInUseError.
 */
export async function acquireLock(dbPath: string): Promise<Lock> {
  const real = realDbPath(dbPath);
  refuseOddSiblings(dbPath, real);
  const host = osHostname();
  const content = ourContent(host, real);
  const byPath = await takeLockFile(`${real}.lock`, dbPath, content, host);
  let byInode: Lock | undefined;
  try {
    byInode = await takeInodeLock(dbPath, content, host);
  } catch (e) {
    await byPath.release();
    throw e;
  }
  return {
    path: byPath.path,
    async release(): Promise<void> {
      await byInode?.release();
      await byPath.release();
    },
  };
}

/**
 * The inode lock, when the file exists and the shared folder can be used; a machine where it
 * cannot still has the path lock, which stops every run that names the file the same way.
 */
async function takeInodeLock(dbPath: string, content: LockContent, host: string): Promise<Lock | undefined> {
  const folder = inodeLockFolder();
  const path = inodeLockPath(dbPath, folder);
  if (path === undefined || !(await ensureInodeLockFolder(folder))) return undefined;
  try {
    return await takeLockFile(path, dbPath, content, host);
  } catch (e) {
    if (e instanceof DatabaseInUseError) throw e;
    return undefined;
  }
}

async function takeLockFile(path: string, dbPath: string, content: LockContent, host: string): Promise<Lock> {
  const text = `${JSON.stringify(content)}\n`;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    let created: boolean;
    try {
      created = await createExclusive(path, text);
    } catch (e) {
      throw userFileError(e, `--db ${dbPath}`, 'create the lock file', path) ?? e;
    }
    if (created) {
      return {
        path,
        async release(): Promise<void> {
          const current = await readText(path).catch(() => undefined);
          if (current === undefined) return;
          if (parse(current)?.token === content.token) await unlink(path).catch(() => undefined);
        },
      };
    }
    const existing = await readText(path);
    if (existing === undefined) continue;
    const holder = parse(existing);
    if (holder !== undefined && holds(holder, host)) throw inUse(dbPath, path, holder, host);
    await removeStale(path, existing);
  }
  throw new DatabaseInUseError(
    `could not take the lock ${path} after ${MAX_ATTEMPTS} attempts: other processes keep taking it`,
    { path: dbPath, lockPath: path },
  );
}

function inUse(dbPath: string, path: string, holder: LockContent, host: string): DatabaseInUseError {
  const otherHost = holder.hostname !== '' && holder.hostname !== host;
  const where = otherHost ? ` on host ${holder.hostname}` : '';
  const alias =
    holder.db !== undefined && holder.db !== realDbPath(dbPath)
      ? ` through ${holder.db}, another name (a hard link) of the same file`
      : '';
  return new DatabaseInUseError(
    `database ${dbPath} is in use by process ${holder.pid}${where} (a sync started at ${holder.startedAt}${alias}); ` +
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
