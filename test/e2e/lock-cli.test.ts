import { existsSync, linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// The lock is taken before any request: an address nobody listens on shows none is sent.
const env = {
  MINTLIFY_API_URL: 'http://127.0.0.1:9',
  MINTLIFY_API_KEY: 'mint_test_key',
  MINTLIFY_PROJECT_ID: 'proj',
};

describe('the sync lock as a process sees it', () => {
  it("refuses a folder in the lock file's place with exit 2 and one line saying to remove it", async () => {
    const db = tempDbPath();
    mkdirSync(`${db}.lock`, { recursive: true });
    const r = await runCli(['sync', '--db', db], env);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${db}.lock is a folder, not a lock file: remove it (rmdir "${db}.lock")`);
  });

  it('refuses a second writer that names the database through a symlink, with exit 5', async () => {
    const db = tempDbPath();
    (await DuckDBInstance.create(db)).closeSync();
    const alias = join(dirname(db), 'alias.duckdb');
    symlinkSync(db, alias);
    // A lock held by a live process (this test runner) is what a running sync leaves.
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    const r = await runCli(['sync', '--db', alias], env);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`process ${process.pid}`);
  });

  it('refuses a second writer that names the database through a hard link in another folder, with exit 5', async () => {
    const db = tempDbPath();
    (await DuckDBInstance.create(db)).closeSync();
    const link = join(mkdtempSync(join(tmpdir(), 'mintlify-etl-link-')), 'same.duckdb');
    linkSync(db, link);
    // An API that accepts and never answers keeps the first sync holding its lock.
    const held: Socket[] = [];
    const silent = createServer((s) => held.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const first = runCliProcess(['sync', '--db', db], { ...env, MINTLIFY_API_URL: url });
    try {
      await waitFor(() => held.length > 0, {
        what: 'the first sync to send its first request',
        abortIf: () => (first.child.exitCode !== null ? `it exited ${first.child.exitCode}` : undefined),
      });
      const second = await runCli(['sync', '--db', link], { ...env, MINTLIFY_API_URL: url });
      expect(second.stderr).toContain(`process ${first.child.pid}`);
      expect(second.code).toBe(5);
    } finally {
      first.child.kill('SIGKILL');
      await first;
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    expect(existsSync(db)).toBe(true);
  });
});
