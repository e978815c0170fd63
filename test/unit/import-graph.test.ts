import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { SRC, sourceFiles, srcName as name } from '../helpers/source-files.js';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN.md: imports flow one way (cli -> pipeline/agent/report -> streams -> extract/load -> api,
 * util at the bottom); `extract` never imports `load` and the reverse; the emulator imports
 * nothing of the client. A circle of imports means two files that should stand in order do not,
 * so this test reads every static import of src/ and names each circle and each breach.
 */

/**
 * The relative modules a file imports statically: `import`, `import type`, side-effect
 * `import '...'`, `export ... from` and `export type ... from`. Dynamic `import()` is left out on
 * purpose: it is how a file may reach upward lazily without tying the load order.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    const spec =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
        ? statement.moduleSpecifier
        : undefined;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    out.push(name(resolve(dirname(file), spec.text.replace(/\.js$/, '.ts'))));
  }
  return out;
}

type Graph = ReadonlyMap<string, readonly string[]>;

function importGraph(): Graph {
  return new Map(sourceFiles(SRC).map((f) => [name(f), [...new Set(importsOf(f))]]));
}

/** Strongly connected components (Tarjan) that hold a circle: two files or more, or a self-import. */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * One shortest circle through the component's first file, written `a -> b -> a`, to say where to
 * cut, then every file tied into the same knot when there are more.
 */
function describeCircle(graph: Graph, component: readonly string[]): string {
  const circle = shortestCircle(graph, component);
  const rest = component.filter((f) => !circle.includes(f));
  return rest.length === 0 ? circle : `${circle} (tied with it: ${rest.join(', ')})`;
}

function shortestCircle(graph: Graph, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return [...path, start].join(' -> ');
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

const top = (file: string): string => (file.includes('/') ? file.split('/')[0]! : file);
const BOTTOM = new Set(['util', 'errors.ts', 'paths.ts']);

/**
 * The layers of DESIGN.md's "cli -> pipeline/agent/report -> streams -> extract/load -> api",
 * lowest first; a file may import its own layer or any below. insights, query and notify are not
 * named there: they sit where their imports put them (insights and query read the database
 * beside streams; notify sends what insights found). sources (the event stream from S3 or a folder)
 * stands beside streams: it writes the rows src/load defines. The emulator stands apart (its own rule).
 */
const LAYER: Readonly<Record<string, number>> = {
  util: 0,
  'errors.ts': 0,
  'paths.ts': 0,
  api: 1,
  extract: 2,
  load: 2,
  streams: 3,
  sources: 3,
  insights: 3,
  query: 3,
  pipeline: 4,
  agent: 4,
  report: 4,
  notify: 4,
  cli: 5,
};
const layerOf = (file: string): number | undefined => LAYER[top(file)];

/** The DESIGN.md rules that a single import can break, each with the reason it exists. */
const RULES: ReadonlyArray<{ breaks: (from: string, to: string) => boolean; why: string }> = [
  {
    breaks: (from, to) => BOTTOM.has(top(from)) && !BOTTOM.has(top(to)),
    why: 'util/, errors.ts and paths.ts are the bottom layer: they import nothing above them',
  },
  {
    breaks: (from, to) =>
      (top(from) === 'extract' && top(to) === 'load') || (top(from) === 'load' && top(to) === 'extract'),
    why: 'extract and load never import each other',
  },
  {
    breaks: (from, to) => top(from) === 'emulator' && top(to) === 'api',
    why: 'the emulator imports nothing of the client (src/api)',
  },
  {
    breaks: (from, to) => (layerOf(from) ?? Infinity) < (layerOf(to) ?? -Infinity),
    why: 'imports flow one way, cli -> pipeline/agent/report -> streams -> extract/load -> api -> util',
  },
];

function breaches(graph: Graph): string[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.flatMap((to) =>
      RULES.filter((r) => r.breaks(from, to)).map((r) => `${from} imports ${to}: ${r.why}`),
    ),
  );
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads the files and their imports (a sanity check of the reader itself)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('util/safe-text.ts')).toContain('util/secrets.ts');
    expect(graph.get('errors.ts')).toContain('util/secrets.ts');
  });

  it('has no circle: every file stands in one order with the files it imports', () => {
    expect(circles(graph).map((c) => describeCircle(graph, c))).toEqual([]);
  });

  it('keeps the layers of DESIGN.md: one way down, util at the bottom, extract and load apart, the emulator off the client', () => {
    expect(breaches(graph)).toEqual([]);
  });
});

describe('the circle finder', () => {
  it('names a circle of three files and leaves a straight chain alone', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(circles(graph).map((c) => describeCircle(graph, c))).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
  });

  it('flags util importing from api, load importing extract and the emulator importing the client', () => {
    const graph = new Map([
      ['util/log.ts', ['api/key.ts']],
      ['load/x.ts', ['extract/y.ts']],
      ['emulator/z.ts', ['api/client.ts', 'util/day.ts']],
    ]);
    const named = new Set(breaches(graph).map((b) => b.slice(0, b.indexOf(':'))));
    expect(named).toEqual(
      new Set([
        'util/log.ts imports api/key.ts',
        'load/x.ts imports extract/y.ts',
        'emulator/z.ts imports api/client.ts',
      ]),
    );
  });

  it('flags an import up the layers and lets one down them pass', () => {
    const graph = new Map([
      ['streams/views.ts', ['pipeline/sync.ts', 'load/sql.ts', 'api/schemas.ts']],
      ['cli/sync.ts', ['pipeline/sync.ts']],
    ]);
    expect(breaches(graph)).toEqual([
      'streams/views.ts imports pipeline/sync.ts: imports flow one way, cli -> pipeline/agent/report -> streams -> extract/load -> api -> util',
    ]);
  });
});
