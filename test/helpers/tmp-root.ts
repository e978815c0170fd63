import { accessSync, chmodSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * vitest global setup: every temp folder of the run (DuckDB files, event folders, the PostgreSQL
 * servers' data, exports) in one folder of its own, in memory when the machine has /dev/shm, and
 * removed at the run's end.
 *
 * - Speed: a DuckDB commit or checkpoint waits on fsync, 9.4 ms each on this machine's disk; the
 *   suite calls it thousands of times (1,329 times in `sync` and `export` alone). The files are
 *   real DuckDB files either way; only their durability against a power cut differs, which no
 *   test is about (a SIGKILL leaves the page cache to the next process on both).
 * - Tidiness: tests leave folders behind (a failed test, a killed run); /tmp had gathered 49 GB.
 *
 * A run's folder carries its pid: one left by a run that was killed is removed by the next.
 * Workers start after the global setup and inherit TMPDIR (os.tmpdir() reads it at each call);
 * a CLI a test spawns gets only the environment the test gives it, so it keeps the real /tmp.
 */

// Short: a PostgreSQL socket path inside it must stay under 108 bytes.
const PREFIX = 'mlx-t-';
const OWN_ENV = 'MINTLIFY_ETL_TEST_TMP';

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the folders of earlier runs whose process is gone. */
function removeOrphans(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(/^mlx-t-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid))
      rmSync(join(parent, name), { recursive: true, force: true });
  }
}

export default function setup(): (() => void) | undefined {
  // Every project that names this setup runs it in the same process: the first one's serves all.
  if (process.env[OWN_ENV] !== undefined) return undefined;
  const parent = writable('/dev/shm') ? '/dev/shm' : undefined;
  if (parent === undefined) return undefined;
  removeOrphans(parent);
  const root = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  // The PostgreSQL servers run as their own user (postgres, under root): they must pass through.
  chmodSync(root, 0o711);
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  process.env[OWN_ENV] = root;
  return () => {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
    delete process.env[OWN_ENV];
    rmSync(root, { recursive: true, force: true });
  };
}
