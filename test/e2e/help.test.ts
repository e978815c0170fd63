import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const version = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe('mintlify-etl --help and --version as a process', () => {
  it('prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('lists every command with what it is for', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['sync', 'status', 'query', 'export', 'report', 'agent', 'emulator', 'demo'])
      expect(r.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(r.stdout).toContain('Start with `mintlify-etl demo`.');
  });

  it('explains the incremental rule and the budget in sync --help', async () => {
    const r = await runCli(['sync', '--help']);
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('With no --from, the run is incremental');
    expect(text).toContain('A day starts only when the budget and the bounds leave room for all its pages');
    expect(text).toContain('--max-wait <duration>');
  });

  it('gives sync a default overall bound of 50 minutes that a nightly job can rely on, and says so', async () => {
    const r = await runCli(['sync', '--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/--max-duration <duration> .{0,300}?\(default: "50m"\) --max-wait/);
    expect(text).toContain('a server that accepts connections but does not answer');
  });

  it('refuses an unknown command with exit 2 and a pointer to --help', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toContain('--help');
  });
});
