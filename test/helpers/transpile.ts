import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { packageRoot } from '../../src/paths.js';

/** Relative `.js` specifiers of a module's imports and re-exports (type-only ones too: harmless). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.js)'/g))
    found.push(m[1] as string);
  return found;
}

/**
 * Plain-JS copies of src/ modules for a child `node` process (which cannot load .ts), in a folder
 * under the package root so that they resolve node_modules. Same relative layout, so imports
 * between them keep working. The entry files' relative imports are followed, so a module that
 * gains an import never breaks the child.
 */
export async function transpileForChild(
  entries: readonly string[],
): Promise<{ dir: string; cleanup: () => void }> {
  // Loaded on demand: the compiler is big, and only the tests that spawn such a child need it.
  const { default: ts } = await import('typescript');
  const root = packageRoot();
  const base = join(root, 'test-artifacts');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'child-'));
  const todo = [...entries];
  const done = new Set<string>();
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(join(root, file), 'utf8');
    for (const spec of relativeImports(source))
      todo.push(normalize(join(dirname(file), spec.replace(/\.js$/, '.ts'))));
    const out = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        verbatimModuleSyntax: true,
      },
      fileName: file,
    });
    const target = join(dir, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
