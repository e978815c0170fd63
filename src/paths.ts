import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up from this file: the same code runs from `src/` under
 * vitest and from `dist/src/` once built, so a fixed number of `..` would be wrong in one of them.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'sql'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('mintlify-etl: cannot find the package root (package.json + sql/)');
    dir = parent;
  }
}

export function sqlDir(): string {
  return join(packageRoot(), 'sql');
}
