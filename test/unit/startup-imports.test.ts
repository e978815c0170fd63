import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';

/*
 * Every module a command imports statically is read and compiled before it does anything, on
 * every run: a cron job's sync into a DuckDB file should not pay for the PostgreSQL driver
 * (pg, pg-types, pg-protocol, pg-copy-streams: ~40 files, ~0.1 s of CPU here). Benchmark 11
 * (BENCHMARKS.md) measures the sync against 11-23's code, which had no PostgreSQL at all.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * The modules `file` loads when it is imported: static imports and re-exports, `import type` and
 * `export type` left out (erased), a dynamic `import()` left out (loaded only when it runs).
 * Under verbatimModuleSyntax `import { type A }` still loads its module, so it counts.
 */
function loads(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const s of source.statements) {
    if (ts.isImportDeclaration(s) && s.importClause?.isTypeOnly === true) continue;
    if (ts.isExportDeclaration(s) && s.isTypeOnly) continue;
    const spec = ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ? s.moduleSpecifier : undefined;
    if (spec !== undefined && ts.isStringLiteral(spec)) out.push(spec.text);
  }
  return out;
}

/** Every package reached from `entry` through static imports, each with one chain that reaches it. */
function packagesReached(entry: string): Map<string, string> {
  const start = resolve(SRC, entry);
  const via = new Map<string, string>([[start, relative(SRC, start)]]);
  const packages = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const spec of loads(file)) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (!via.has(target) && existsSync(target)) {
          via.set(target, `${via.get(file)} -> ${relative(SRC, target)}`);
          queue.push(target);
        }
      } else if (!spec.startsWith('node:') && !packages.has(spec)) {
        packages.set(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
          via.get(file) as string,
        );
      }
    }
  }
  return packages;
}

describe('what a command loads before it starts', () => {
  // A running sync: cli/sync.ts declares the flags, cli/sync-action.ts is what its action imports.
  it('a sync into a DuckDB file loads no PostgreSQL driver: sync reaches pg and pg-copy-streams only through import()', () => {
    const reached = packagesReached('cli/sync-action.ts');
    const pg = [...reached].filter(([name]) => name === 'pg' || name.startsWith('pg-'));
    expect(pg.map(([name, chain]) => `${name} via ${chain}`)).toEqual([]);
  });

  it('the reader sees the packages sync does need (a sanity check of the walk itself)', () => {
    const reached = packagesReached('cli/sync-action.ts');
    expect([...reached.keys()]).toEqual(expect.arrayContaining(['@duckdb/node-api', 'undici', 'zod']));
  });
});

/**
 * What `mintlify-etl CMD --help` loads: main.ts, then the command's own module (commands.ts
 * imports that one only). Each of these packages costs from tenths of a second (zod, undici) to
 * over a second and 80 MB (DuckDB's native module) before the help is printed; a command reaches
 * them only through the `import()` of its action, when it runs.
 */
const HEAVY = /^(@duckdb\/node-api|pg|pg-.+|undici|zod|@aws-sdk\/.+|jsdom|@observablehq\/plot|d3|d3-.+)$/;

function heavyReached(entry: string): string[] {
  return [...packagesReached(entry)]
    .filter(([name]) => HEAVY.test(name))
    .map(([n, chain]) => `${n} via ${chain}`);
}

describe("what a command's --help loads", () => {
  it('the top-level help (main.ts) reaches no heavy package', () => {
    expect(heavyReached('cli/main.ts')).toEqual([]);
  });

  for (const name of Object.keys(COMMANDS)) {
    it(`${name} --help reaches no heavy package (@duckdb/node-api, pg, undici, zod, @aws-sdk, jsdom, Plot, d3)`, () => {
      expect(existsSync(resolve(SRC, 'cli', `${name}.ts`)), `src/cli/${name}.ts`).toBe(true);
      expect(heavyReached(`cli/${name}.ts`)).toEqual([]);
    });
  }

  it('the walk sees a heavy package where one is imported statically (a sanity check of the test)', () => {
    expect(heavyReached('load/duckdb/database.ts')).toEqual([
      expect.stringMatching(/^@duckdb\/node-api via /),
    ]);
  });
});
