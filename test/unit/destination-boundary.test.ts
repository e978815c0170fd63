import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { SRC, sourceFiles, srcName as name } from '../helpers/source-files.js';
import { describe, expect, it } from 'vitest';

/*
 * Issue 28: each destination is a folder behind one interface. A database driver is imported only
 * inside its destination's folder (src/load/duckdb/, src/load/postgres/); outside src/load/ no
 * module reaches into those folders or asks which destination it has: what it needs to know is a
 * method of Place or Destination (src/load/destination.ts).
 */

const DRIVERS: Readonly<Record<string, string>> = {
  '@duckdb/node-api': 'load/duckdb/',
  pg: 'load/postgres/',
  'pg-copy-streams': 'load/postgres/',
};

/**
 * The one exception, on purpose: PostgreSQL's `export` writes its files with DuckDB's COPY (an
 * in-memory DuckDB reads each chunk PostgreSQL dumps), so both destinations export the same bytes.
 */
const ALLOWED = new Set(['load/postgres/export.ts imports @duckdb/node-api']);

/** Every module a file names: static imports and exports, and dynamic import() of a literal. */
function modulesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined
    ) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.map((m) => (m.startsWith('.') ? name(resolve(dirname(file), m.replace(/\.js$/, '.ts'))) : m));
}

const files = sourceFiles(SRC).map((f) => ({ file: name(f), abs: f, modules: modulesOf(f) }));

describe('the destination boundary', () => {
  it('imports each database driver only inside its destination folder', () => {
    const breaches = files.flatMap(({ file, modules }) =>
      modules
        .filter((m) => DRIVERS[m] !== undefined && !file.startsWith(DRIVERS[m]))
        .map((m) => `${file} imports ${m}`)
        .filter((b) => !ALLOWED.has(b)),
    );
    expect(breaches).toEqual([]);
  });

  it('lets nothing outside src/load/ reach into a destination folder', () => {
    const breaches = files
      .filter(({ file }) => !file.startsWith('load/'))
      .flatMap(({ file, modules }) =>
        modules
          .filter((m) => m.startsWith('load/duckdb/') || m.startsWith('load/postgres/'))
          .map((m) => `${file} imports ${m}`),
      );
    expect(breaches).toEqual([]);
  });

  it('lets nothing outside src/load/ branch on which destination it has', () => {
    const asks =
      /\.(kind|dialect)\s*[!=]==?\s*'(duckdb|postgres)'|'(duckdb|postgres)'\s*[!=]==?\s*\w+\.(kind|dialect)/;
    const breaches = files
      .filter(({ file }) => !file.startsWith('load/') && !file.startsWith('emulator/'))
      .flatMap(({ file, abs }) =>
        readFileSync(abs, 'utf8')
          .split('\n')
          .flatMap((line, i) => (asks.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(breaches).toEqual([]);
  });

  it('would catch a driver imported by a command, and a command that asks for DuckDB', () => {
    const asks = /\.(kind|dialect)\s*[!=]==?\s*'(duckdb|postgres)'/;
    expect(asks.test("if (target.kind === 'duckdb') checkDbPath(target.path);")).toBe(true);
    expect(DRIVERS['pg']).toBe('load/postgres/');
  });
});
