import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest global setup: every temp folder of the run (DuckDB files, event folders, the PostgreSQL
 * servers' data, exports) in one folder of its own inside the system's temp folder, removed at the
 * run's end with whatever a test left in it: failed tests and killed runs had left 49 GB in /tmp.
 *
 * A run's folder carries its pid: one left by a run that was itself killed is removed by the next.
 * Workers start after the global setup and inherit TMPDIR (os.tmpdir() reads it at each call); a
 * CLI a test runs gets only the environment the test gives it, so it stages in the system's temp
 * folder unless the test passes TMPDIR on.
 *
 * Not in /dev/shm: measured on this machine (2026-11-29, four DuckDB-heavy files, quiet), the
 * disk's fsync (9.4 ms each) is off the tests' critical path: 85.5 s in memory, 86.1 s on disk.
 */

// Short: a PostgreSQL socket path inside it must stay under 108 bytes.
const PREFIX = 'mlx-t-';
const OWN_ENV = 'MINTLIFY_ETL_TEST_TMP';

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
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-', 1)[0]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid))
      rmSync(join(parent, name), { recursive: true, force: true });
  }
}

export default function setup(): (() => void) | undefined {
  // Every project that names this setup runs it in the same process: the first one's serves all.
  if (process.env[OWN_ENV] !== undefined) return undefined;
  const parent = tmpdir();
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
