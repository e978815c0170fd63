import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { EmulatorOptions } from '../../src/emulator/index.js';

/** The built CLI, beside this file in dist/. */
export const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.js');
/** The installed command (package.json's bin): sizes libuv's pool before the CLI loads (src/cli/thread-pool.cts). */
export const BIN = join(import.meta.dirname, '..', '..', 'src', 'cli', 'bin.cjs');

export interface EmulatorProcess {
  readonly url: string;
  readonly projectId: string;
  readonly apiKey: string;
  readonly pid: number;
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/**
 * The emulator in its own process (`mintlify-etl emulator --port 0`), so its CPU is not charged
 * to the sync being measured; its banner line names the URL, project and key.
 */
export async function startEmulatorProcess(args: readonly string[]): Promise<EmulatorProcess> {
  return spawnEmulator([CLI, 'emulator', '--port', '0', ...args]);
}

/** The bench's own emulator script, beside this file in dist/ (see emulator-process.ts). */
const EMULATOR_SCRIPT = join(import.meta.dirname, 'emulator-process.js');

/**
 * An emulator process with any EmulatorOptions (its own API key and project: one organization),
 * for benchmarks that need more than the `emulator` command's flags.
 */
export async function startEmulatorWith(opts: EmulatorOptions): Promise<EmulatorProcess> {
  return spawnEmulator([EMULATOR_SCRIPT, JSON.stringify(opts)]);
}

async function spawnEmulator(argv: readonly string[]): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const banner = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (line) => resolve(line));
    child.once('exit', (code) => reject(new Error(`emulator exited (${code}): ${stderr}`)));
  });
  const m = /on (http:\/\/\S+) project=(\S+) key=(\S+)/.exec(banner);
  if (!m) throw new Error(`unexpected emulator banner: ${banner}`);
  return {
    url: m[1] as string,
    projectId: m[2] as string,
    apiKey: m[3] as string,
    pid: child.pid ?? -1,
    async close(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export interface ProcessRun {
  readonly code: number | null;
  readonly wallMs: number;
  /** Peak resident set size of the CLI process, from /usr/bin/time (undefined without it). */
  readonly maxRssMiB: number | undefined;
  /** User + system CPU seconds of the CLI process, from /usr/bin/time (undefined without it). */
  readonly cpuS: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

const TIME = '/usr/bin/time';
const RSS_MARK = 'BENCH_MAXRSS_KB=';
const CPU_MARK = 'BENCH_CPU_S=';

/** User + system seconds from the CPU_MARK line (the process's own, as the kernel counted them). */
function cpuSeconds(stderr: string): number | undefined {
  const m = new RegExp(`${CPU_MARK}([\\d.]+)\\+([\\d.]+)`).exec(stderr);
  return m ? Number(m[1]) + Number(m[2]) : undefined;
}

/**
 * Runs `node dist/src/cli/main.js ...args` (or another build's CLI given as `script`) as a child,
 * under /usr/bin/time when present.
 */
export async function runCliProcess(
  args: readonly string[],
  env: Record<string, string>,
  script: string = CLI,
): Promise<ProcessRun> {
  const wrap = existsSync(TIME);
  const cmd = wrap ? TIME : process.execPath;
  const argv = wrap
    ? ['-f', `${RSS_MARK}%M ${CPU_MARK}%U+%S`, process.execPath, script, ...args]
    : [script, ...args];
  const t0 = performance.now();
  const child = spawn(cmd, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', CI: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  const wallMs = performance.now() - t0;
  const kb = new RegExp(`${RSS_MARK}(\\d+)`).exec(stderr)?.[1];
  return {
    code,
    wallMs,
    maxRssMiB: kb === undefined ? undefined : Number(kb) / 1024,
    cpuS: cpuSeconds(stderr),
    stdout,
    stderr,
  };
}

export interface MeasuredRun {
  readonly code: number | null;
  readonly wallMs: number;
  readonly maxRssMiB: number | undefined;
  /** Bytes the command wrote to stdout (read through a pipe and dropped, never kept). */
  readonly stdoutBytes: number;
  /** Newlines in stdout. */
  readonly stdoutLines: number;
  readonly stderr: string;
}

/**
 * Like runCliProcess (or another script of dist/ given as `script`), but stdout is a pipe that is read and counted, never kept: a command that
 * prints millions of rows runs as it would into `| wc -l`, with back-pressure, and the bench
 * process does not hold its output.
 */
export async function measureCliProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  script: string = CLI,
): Promise<MeasuredRun> {
  const wrap = existsSync(TIME);
  const cmd = wrap ? TIME : process.execPath;
  const argv = wrap ? ['-f', `${RSS_MARK}%M`, process.execPath, script, ...args] : [script, ...args];
  const t0 = performance.now();
  const child = spawn(cmd, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', CI: '1', ...env },
  });
  let stdoutBytes = 0;
  let stdoutLines = 0;
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdoutBytes += d.length;
    for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) stdoutLines++;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  const wallMs = performance.now() - t0;
  const kb = new RegExp(`${RSS_MARK}(\\d+)`).exec(stderr)?.[1];
  return {
    code,
    wallMs,
    maxRssMiB: kb === undefined ? undefined : Number(kb) / 1024,
    stdoutBytes,
    stdoutLines,
    stderr,
  };
}
