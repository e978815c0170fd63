import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { runCliInProcess, type InProcessOptions } from './cli-in-process.js';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI in this test's process (test/helpers/cli-in-process.ts): for what a run
 * prints and stores. A test about the process itself (a kill, a signal, two runs at once, the
 * exit status as the shell sees it, a preload in NODE_OPTIONS) uses runCliProcess.
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  opts: InProcessOptions = {},
): Promise<CliResult> {
  // A preload (NODE_OPTIONS=--import) changes a process from its start: only a process has one.
  if (env['NODE_OPTIONS'] !== undefined) return runCliProcess(args, env, opts);
  return runCliInProcess(args, env, opts);
}

/**
 * Runs the built CLI as a real process with only the environment given (plus PATH). The process
 * takes this test's clock (MINTLIFY_ETL_NOW, ticking from now): the emulators the tests start in
 * process and the CLI then agree on "today" under any clock, faked or not. A test pins its own
 * instant by giving MINTLIFY_ETL_NOW, or the system clock by giving it empty.
 */
export function runCliProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  opts: { cwd?: string } = {},
): Promise<CliResult> & { child: ChildProcess } {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', CI: '1', MINTLIFY_ETL_NOW: new Date().toISOString(), ...env },
    cwd: opts.cwd ?? process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return Object.assign(done, { child });
}
