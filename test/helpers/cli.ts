import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a real process with only the environment given (plus PATH). */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  opts: { cwd?: string } = {},
): Promise<CliResult> & { child: ChildProcess } {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', CI: '1', ...env },
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
