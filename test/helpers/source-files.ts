import { readdirSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's src/ folder. */
export const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Every TypeScript source file below `dir` (declaration files left out). */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `src/`-relative posix path, the name used in every message. */
export const srcName = (abs: string): string => relative(SRC, abs).split(/[\\/]/).join(posix.sep);
