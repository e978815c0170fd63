import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { tempDir } from '../helpers/duckdb-temp.js';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};
const BIN = join(ROOT, pkg.bin['mintlify-etl'] ?? 'missing');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runBin(
  args: readonly string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Run> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A CommonJS preload that, at exit, writes what the process ended with: UV_THREADPOOL_SIZE and
 * its thread count (libuv starts all of its pool's threads at the pool's first use).
 */
function probe(dir: string): { file: string; out: string } {
  const file = join(dir, 'probe.cjs');
  const out = join(dir, 'probe.json');
  writeFileSync(
    file,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
  pool: process.env.UV_THREADPOOL_SIZE ?? null,
  threads: require('node:fs').readdirSync('/proc/self/task').length,
})));\n`,
  );
  return { file, out };
}

describe("the installed command (package.json's bin)", () => {
  it('is built, and runs the CLI: --version prints the version and exits 0', async () => {
    expect(existsSync(BIN)).toBe(true);
    const r = await runBin(['--version']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('passes the exit code through: an unknown command exits 2 with one line that says so', async () => {
    const r = await runBin(['no-such-command']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/unknown command 'no-such-command'/);
  });

  it.skipIf(!existsSync('/proc/self/task'))(
    "runs with libuv's pool at 2 threads unless the user sized it (fewer malloc arenas for DuckDB)",
    async () => {
      const { dir, cleanup } = tempDir('bin-pool-');
      onTestFinished(cleanup);
      const events = join(dir, 'events');
      mkdirSync(events);
      writeFileSync(
        join(events, '2026-11-01T00:00:00.000Z.jsonl'),
        `${JSON.stringify({ eventType: 'docs.content.view', payload: { event_id: 'e1', created_at: '2026-11-01T00:00:00Z' } })}\n`,
      );
      const { file, out } = probe(dir);
      const sync = (db: string, env: Record<string, string>) =>
        runBin(
          [
            'sync',
            '--streams',
            'events',
            '--events',
            events,
            '--db',
            join(dir, db),
            '--project',
            'p',
            '--quiet',
          ],
          { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
          ['--require', file],
        );
      const ours = await sync('a.duckdb', {});
      expect(ours.code, ours.stderr).toBe(EXIT.ok);
      const a = JSON.parse(readFileSync(out, 'utf8')) as { pool: string; threads: number };
      const theirs = await sync('b.duckdb', { UV_THREADPOOL_SIZE: '6' });
      expect(theirs.code, theirs.stderr).toBe(EXIT.ok);
      const b = JSON.parse(readFileSync(out, 'utf8')) as { pool: string; threads: number };
      expect(a.pool).toBe('2');
      expect(b.pool).toBe('6');
      expect(b.threads - a.threads).toBe(4);
    },
  );
});
