import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseInUseError, UsageError } from '../../src/errors.js';
import { acquireLock } from '../../src/load/duckdb/file-lock.js';
import { spawnNodeScript, tempDir, type NodeChild } from '../helpers/duckdb-temp.js';

let dir: string;
let cleanup: () => void;
let db: string;
let live: NodeChild;

/** A pid that surely belongs to no process: one that just exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['--version']);
  return r.pid ?? 999_999;
}

beforeAll(async () => {
  live = spawnNodeScript("console.log('ready'); setInterval(() => {}, 1000);");
  expect(await live.nextLine()).toBe('ready');
});
afterAll(async () => {
  await live.kill();
});
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  // The lock sits beside the real file: name the database by its real path (tmpdir may be a symlink).
  db = join(realpathSync(dir), 'a.duckdb');
});
afterEach(() => cleanup());

describe('acquireLock', () => {
  it('creates PATH.lock holding our pid, start time and host, and release removes it', async () => {
    const before = Date.now();
    const lock = await acquireLock(db);
    const after = Date.now();
    expect(lock.path).toBe(`${db}.lock`);
    const content = JSON.parse(readFileSync(lock.path, 'utf8')) as Record<string, unknown>;
    expect(content['pid']).toBe(process.pid);
    expect(content['hostname']).toBe(hostname());
    // Written by this acquire: between the call and its return.
    expect(Date.parse(String(content['startedAt']))).toBeGreaterThanOrEqual(before);
    expect(Date.parse(String(content['startedAt']))).toBeLessThanOrEqual(after);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses a second acquire while the first holds the lock, naming the pid and the way out', async () => {
    const first = await acquireLock(db);
    const err = await acquireLock(db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect((err as DatabaseInUseError).exitCode).toBe(5);
    expect((err as DatabaseInUseError).context['pid']).toBe(process.pid);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^database ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${process.pid} \\(a sync started at \\d{4}-\\d\\d-\\d\\dT.+\\); wait for it or, if it is gone, delete .*a\\.duckdb\\.lock$`,
      ),
    );
    await first.release();
    const again = await acquireLock(db);
    await again.release();
  });

  it('refuses a lock held by another live process that started before the lock was written', async () => {
    const written = new Date().toISOString();
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: live.pid, startedAt: written, hostname: hostname() }));
    const err = await acquireLock(db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect((err as Error).message).toContain(
      `is in use by process ${live.pid} (a sync started at ${written})`,
    );
  });

  it('treats a symlink to the database as the same database: one lock, beside the real file', async () => {
    writeFileSync(db, '');
    const alias = join(dir, 'alias.duckdb');
    symlinkSync(db, alias);
    const first = await acquireLock(alias);
    expect(first.path).toBe(`${realpathSync(db)}.lock`);
    const err = await acquireLock(db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect(existsSync(`${alias}.lock`)).toBe(false);
    await first.release();
  });

  it('treats a database not created yet, named through a symlinked folder, as the same database', async () => {
    const real = join(dir, 'real');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'linked'));
    const first = await acquireLock(join(dir, 'linked', 'new.duckdb'));
    expect(first.path).toBe(join(realpathSync(real), 'new.duckdb.lock'));
    const err = await acquireLock(join(real, 'new.duckdb')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    await first.release();
  });

  it.runIf(process.platform === 'linux')(
    'takes over a lock whose pid now belongs to a process started after the lock was written (a reused pid)',
    async () => {
      // Written at boot, by the kernel's clock (the one /proc start times count on, whatever this
      // process's clock says): the helper started long after. pid 1 started at boot, after 2001.
      const bootMs = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]) * 1000;
      const written = [
        { pid: live.pid, startedAt: new Date(bootMs).toISOString() },
        { pid: 1, startedAt: '2001-01-01T00:00:00.000Z' },
      ];
      for (const { pid, startedAt } of written) {
        writeFileSync(`${db}.lock`, JSON.stringify({ pid, startedAt, hostname: hostname() }));
        const lock = await acquireLock(db);
        expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
        await lock.release();
      }
    },
  );

  it.runIf(process.platform === 'linux')(
    'records which process holds the lock, so that a later process with the same pid is not taken for it',
    async () => {
      const mine = await acquireLock(db);
      const content = JSON.parse(readFileSync(mine.path, 'utf8')) as Record<string, unknown>;
      expect(content['bootId']).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
      expect(Number.isInteger(content['startTicks'])).toBe(true);
      await mine.release();

      // Written just now, naming a live pid, but by another process than the one that has it now.
      const now = new Date().toISOString();
      const other = { ...content, pid: live.pid, startedAt: now, token: 'other' };
      writeFileSync(`${db}.lock`, JSON.stringify(other));
      const taken = await acquireLock(db);
      await taken.release();

      writeFileSync(`${db}.lock`, JSON.stringify({ ...content, startedAt: now, token: 'same' }));
      const err = await acquireLock(db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseInUseError);
    },
  );

  it('refuses a lock path that is a folder with a usage error that says how to remove it', async () => {
    mkdirSync(`${db}.lock`);
    const err = await acquireLock(db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as Error).message).toBe(
      `${db}.lock is a folder, not a lock file: remove it (rmdir "${db}.lock") and try again`,
    );
  });

  it('takes over the lock of a process that is gone', async () => {
    const gone = deadPid();
    writeFileSync(
      `${db}.lock`,
      JSON.stringify({ pid: gone, startedAt: '2024-05-01T10:00:00.000Z', hostname: hostname() }),
    );
    const lock = await acquireLock(db);
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('takes over an empty or garbled lock file (a crash while writing it)', async () => {
    for (const garbage of ['', '{"pid":', 'not json', '{"pid": -4}', '{"pid": "12"}']) {
      writeFileSync(`${db}.lock`, garbage);
      const lock = await acquireLock(db);
      expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
      await lock.release();
    }
  });

  it('lets exactly one of several racing processes take over a stale lock', async () => {
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: deadPid(), startedAt: 'then', hostname: hostname() }));
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map(() => acquireLock(db)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DatabaseInUseError);
    }
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>>).value.release();
  });

  it('does not delete on release a lock that someone else has taken over since', async () => {
    const lock = await acquireLock(db);
    const theirs = JSON.stringify({
      pid: live.pid,
      startedAt: 'later',
      hostname: hostname(),
      token: 'theirs',
    });
    writeFileSync(lock.path, theirs);
    await lock.release();
    expect(readFileSync(lock.path, 'utf8')).toBe(theirs);
  });

  it('treats a lock from another host as held (its pid cannot be checked from here)', async () => {
    writeFileSync(
      `${db}.lock`,
      JSON.stringify({ pid: deadPid(), startedAt: 'then', hostname: 'elsewhere.example' }),
    );
    const err = await acquireLock(db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect((err as Error).message).toContain('on host elsewhere.example');
  });
});
