import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../../src/paths.js';

/** A fresh temp folder, removed by `cleanup`. */
export function tempDir(prefix = 'mintlify-etl-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface NodeChild {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Every stdout line, in order, as it arrives. */
  nextLine(): Promise<string>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  kill(): Promise<void>;
}

/** Runs an ES module script with `node --input-type=module -e` from the package root (so it resolves @duckdb/node-api). */
export function spawnNodeScript(script: string, args: readonly string[] = []): NodeChild {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {
    cwd: packageRoot(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    nextLine(): Promise<string> {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise<string>((resolve, reject) => {
        waiting.push(resolve);
        void exited.then(({ code, signal }) =>
          reject(new Error(`child exited (${code ?? signal}) without answering: ${stderr}`)),
        );
      });
    },
    send(line: string): void {
      child.stdin.write(`${line}\n`);
    },
    exited,
    stderr: () => stderr,
    async kill(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A child process that opens and closes DuckDB files on command, one JSON line per command on
 * stdin: {"open": path, "readOnly"?: bool} -> "opened" | "error <message>"; {"close": true,
 * "afterMs"?: n} -> "closing". Process start costs about a second, so tests share one.
 */
export function duckdbChild(): NodeChild {
  return spawnNodeScript(`
    import { DuckDBInstance } from '@duckdb/node-api';
    import { createInterface } from 'node:readline';
    let held;
    const close = () => { held?.conn.closeSync(); held?.instance.closeSync(); held = undefined; };
    console.log('ready');
    for await (const line of createInterface({ input: process.stdin })) {
      const cmd = JSON.parse(line);
      if (cmd.open) {
        try {
          const instance = await DuckDBInstance.create(cmd.open, cmd.readOnly ? { access_mode: 'READ_ONLY' } : {});
          held = { instance, conn: await instance.connect() };
          console.log('opened');
        } catch (e) { console.log('error ' + e.message); }
      } else if (cmd.close) {
        console.log('closing');
        if (cmd.afterMs) setTimeout(close, cmd.afterMs); else close();
      }
    }
  `);
}
