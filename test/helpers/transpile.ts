import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

/**
 * Plain-JS copies of some src/ modules for a child `node` process (which cannot load .ts), in a
 * folder under the package root so that they resolve node_modules. Same relative layout, so
 * imports between them keep working.
 */
export async function transpileForChild(
  files: readonly string[],
): Promise<{ dir: string; cleanup: () => void }> {
  // Loaded on demand: the compiler is big, and only the tests that spawn such a child need it.
  const { default: ts } = await import('typescript');
  const root = packageRoot();
  const base = join(root, 'test-artifacts');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'child-'));
  for (const file of files) {
    const source = readFileSync(join(root, file), 'utf8');
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
