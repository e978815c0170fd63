import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { EXIT } from '../../src/errors.js';
import { CLI, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/duckdb-temp.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** Every environment variable the tool reads (`env['NAME']`), the emulator's fixture text aside. */
function variablesTheCodeReads(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.startsWith('emulator')) continue;
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const m of text.matchAll(/env\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)) names.add(m[1] as string);
    // A variable read through a named constant (`env[WEBHOOK_ENV]`).
    for (const m of text.matchAll(/const \w+_ENV = ['"]([A-Z][A-Z0-9_]*)['"]/g)) names.add(m[1] as string);
  }
  return [...names].sort();
}

/** The lines of one section of the top-level help, up to the next blank line. */
function section(help: string, title: string): string[] {
  const start = help.indexOf(`\n${title}:\n`);
  if (start < 0) return [];
  const body = help.slice(start + title.length + 3);
  const end = body.indexOf('\n\n');
  return (end < 0 ? body : body.slice(0, end)).split('\n').filter((l) => l.trim() !== '');
}

const version = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/**
 * `node --import` this: module hooks (module.register) that append every module URL the process
 * resolves to the file MODULE_TRACE_FILE names: timing-free evidence of what a command loads.
 */
const MODULE_TRACE = dataUrl(`
  import { register } from 'node:module';
  register(${JSON.stringify(
    dataUrl(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const r = await next(specifier, context);
        appendFileSync(process.env.MODULE_TRACE_FILE, r.url + '\\n');
        return r;
      }`),
  )});`);

function dataUrl(source: string): string {
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

/** Runs the CLI with MODULE_TRACE: its stdout and the URLs of every module it loaded. */
function traced(args: readonly string[]): { stdout: string; loaded: string } {
  const t = tempDir('mlx-help-modules-');
  try {
    const trace = join(t.dir, 'modules.txt');
    const r = spawnSync(process.execPath, ['--import', MODULE_TRACE, CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', MODULE_TRACE_FILE: trace },
      encoding: 'utf8',
    });
    expect(r.status, args.join(' ')).toBe(0);
    return { stdout: r.stdout, loaded: readFileSync(trace, 'utf8') };
  } finally {
    t.cleanup();
  }
}

/** The packages among `loaded` that cost a help tenths of a second or more to load. */
function heavyPackages(loaded: string): string[] {
  const names = [...loaded.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1] ?? '');
  return [
    ...new Set(
      names.filter((n) => /^(@duckdb\/|pg$|pg-|jsdom|@observablehq\/|d3|undici|zod|@aws-sdk\/)/.test(n)),
    ),
  ];
}

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

  it('lists every environment variable the code reads, and no other', async () => {
    const r = await runCli(['--help']);
    const listed = section(r.stdout, 'Environment')
      .map((l) => /^ {2}([A-Z][A-Z0-9_]*)\b/.exec(l)?.[1])
      .filter((n) => n !== undefined)
      .sort();
    expect(variablesTheCodeReads()).toContain('MINTLIFY_ETL_STREAMS');
    expect(listed).toEqual(variablesTheCodeReads());
  });

  it('lists every exit code the tool defines, each with its meaning, and no other', async () => {
    const r = await runCli(['--help']);
    const lines = section(r.stdout, 'Exit codes');
    const listed = lines.map((l) => Number(/^ {2}(\d+) {2,}\S/.exec(l)?.[1])).filter((n) => !Number.isNaN(n));
    expect(listed).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    expect(lines.find((l) => l.startsWith('  130 '))).toMatch(/interrupted/);
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

  it('ends the --help of every command with the docs page to read, a file that exists', async () => {
    for (const cmd of [
      ['sync'],
      ['check'],
      ['status'],
      ['query'],
      ['export'],
      ['report'],
      ['gaps'],
      ['alerts'],
      ['digest'],
      ['agent'],
      ['agent', 'fix'],
      ['agent', 'create'],
      ['emulator'],
      ['demo'],
    ]) {
      const r = await runCli([...cmd, '--help']);
      expect(r.code, cmd.join(' ')).toBe(0);
      const m = /\nDocs: (\S+\.md)\n$/.exec(r.stdout);
      expect(m, `${cmd.join(' ')} --help ends with its docs page`).not.toBeNull();
      expect(existsSync(m![1]!), m![1]).toBe(true);
    }
  });

  it('prints the top-level help with commander and the option definitions only: no DuckDB, pg, jsdom, Plot, undici or zod', () => {
    const { stdout, loaded } = traced(['--help']);
    expect(stdout).toMatch(/^ {2}digest /m);
    expect(loaded).toContain('node_modules/commander/');
    expect(heavyPackages(loaded)).toEqual([]);
  });

  it("prints each command's help without loading DuckDB, pg, undici, zod, the AWS SDK, jsdom, Plot or d3", () => {
    for (const cmd of Object.keys(COMMANDS)) {
      const { stdout, loaded } = traced([cmd, '--help']);
      expect(stdout, cmd).toMatch(new RegExp(`^Usage: mintlify-etl ${cmd} `));
      expect(heavyPackages(loaded), `${cmd} --help`).toEqual([]);
    }
  });

  it('describes both destinations and ends with where the docs are', async () => {
    const r = await runCli(['--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('a DuckDB file (the default) or a PostgreSQL schema');
    const m = /\nDocs: (\S+\.md) /.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(existsSync(m![1]!)).toBe(true);
  });
});
