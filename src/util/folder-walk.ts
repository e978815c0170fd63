import { readdir, rmdir } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/**
 * The two folder chores both exports share (the `--out` folder and the lake folder): listing the
 * files below a root, and removing the folders a deletion left empty.
 */

export interface WalkRules {
  /** Whether to go into the folder `name`, `depth` levels below the root (0: a child of it). */
  readonly into: (name: string, depth: number) => boolean;
  /** Whether to list the file `name`, `depth` folders below the root. */
  readonly keep: (name: string, depth: number) => boolean;
}

/**
 * The files below `root` the rules keep, as their path segments relative to it, in name order
 * folder by folder. A root that does not exist has none; other read errors are thrown.
 */
export async function filesBelow(root: string, rules: WalkRules): Promise<string[][]> {
  const out: string[][] = [];
  const walk = async (above: readonly string[]): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, ...above), { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.isDirectory() && rules.into(e.name, above.length)) await walk([...above, e.name]);
      else if (e.isFile() && rules.keep(e.name, above.length)) out.push([...above, e.name]);
    }
  };
  await walk([]);
  return out;
}

/** Removes `dir` and the folders above it while they are empty, up to (not including) `root`. */
export async function removeEmptyFolders(root: string, dir: string): Promise<void> {
  const base = resolve(root);
  let at = resolve(dir);
  while (at !== base && at.startsWith(base + sep)) {
    try {
      await rmdir(at);
    } catch {
      return; // not empty (or gone already): nor is any folder above
    }
    at = dirname(at);
  }
}
