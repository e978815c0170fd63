import { spawn } from 'node:child_process';
import { CLI, type CliResult } from './cli.js';

/*
 * The built CLI as a real process whose stdout and stderr are a terminal: util-linux `script`
 * gives it a pseudo-terminal of `columns` columns, and its output (both streams, as a terminal
 * shows them) comes back as `stdout`. What a user sees: bars drawn, cleared, and the summary.
 */

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function runCliOnTty(
  args: readonly string[],
  env: Record<string, string> = {},
  columns = 200,
): Promise<CliResult> {
  const command = `stty cols ${columns} rows 50; exec ${[process.execPath, CLI, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    // No CI: the bars stay off in CI whatever the terminal.
    env: { PATH: process.env['PATH'] ?? '', CI: '', MINTLIFY_ETL_NOW: new Date().toISOString(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b(?:\[[0-9;?]*[A-Za-z]|[78])/g;

/** Each redraw of a bar whose line holds `marker`, escapes removed, in the order drawn. */
export function barFrames(output: string, marker: string): string[] {
  return (
    output
      // eslint-disable-next-line no-control-regex
      .split(/\r|\n|\x1b\[1G/)
      .map((s) => s.replace(ESCAPES, '').trim())
      .filter((s) => s.includes(marker))
  );
}
