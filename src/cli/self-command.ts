import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../paths.js';
import { shellWord } from '../util/shell-word.js';

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How a printed hint should call this very install from any folder: `mintlify-etl` when that
 * name on PATH is this install (npm link, a global install), else node with the absolute path
 * of the built CLI. Never `npx mintlify-etl`: it would run whatever package of that name the
 * registry serves, and never a relative `node dist/...`, which only works in the clone's root.
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env): string {
  const main = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  const self = realOrUndefined(main);
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '' || self === undefined) continue;
    if (realOrUndefined(join(dir, 'mintlify-etl')) === self) return 'mintlify-etl';
  }
  return `node ${shellWord(main)}`;
}
