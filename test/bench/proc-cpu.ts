import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/*
 * CPU seconds of processes the bench did not start itself as measured children (the emulator
 * processes, the PostgreSQL server), read from /proc: on a 2-core machine, whether two syncs at
 * once can finish as fast as one depends on how much CPU one sync's whole setup burns.
 */

const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

interface Stat {
  readonly ppid: number;
  /** utime + stime + cutime + cstime, in seconds: its own CPU and that of children it reaped. */
  readonly cpuS: number;
}

function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone between listing and reading
  }
  // After "pid (comm) ": state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based fields.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number): number => Number(f[i - 3]);
  return { ppid: n(4), cpuS: (n(14) + n(15) + n(16) + n(17)) / TICKS };
}

/** A process's CPU seconds so far, its reaped children's included (0 when it is gone). */
export function processCpuS(pid: number): number {
  return stat(pid)?.cpuS ?? 0;
}

/**
 * The CPU seconds of a process and its live children so far. For the PostgreSQL postmaster:
 * backends that exited were reaped by it (in its cutime), live ones (checkpointer, a
 * connection) are read one by one. The difference of two calls is the server's CPU in between.
 */
export function treeCpuS(pid: number): number {
  let total = processCpuS(pid);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s?.ppid === pid) total += s.cpuS;
  }
  return total;
}

/** The postmaster's pid: the parent of a backend serving `url`. */
export async function postmasterPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = stat(Number(r.rows[0]?.pid));
    if (!backend) throw new Error('cannot read the PostgreSQL backend in /proc');
    return backend.ppid;
  } finally {
    await client.end();
  }
}
