import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { filesBelow, removeEmptyFolders } from '../../util/folder-walk.js';
import type { LakeObject, LakeTarget } from './target.js';

/** Temporary names of a put in progress: never listed as objects, and removed if left behind. */
const PUTTING = /\.putting-\d+-[0-9a-z]+$/;

/** A lake in a local (or mounted) folder: puts are a write to a temporary name, then a rename. */
export function folderTarget(root: string): LakeTarget {
  const base = resolve(root);
  const path = (key: string): string => join(base, ...key.split('/'));
  const putVia = async (key: string, write: (tmp: string) => Promise<void>): Promise<void> => {
    const target = path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.putting-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    try {
      await write(tmp);
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  };
  return {
    where: base,
    list: () => listFiles(base),
    async getText(key) {
      try {
        return await readFile(path(key), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    putText: (key, text) => putVia(key, (tmp) => writeFile(tmp, text)),
    putFile: (key, file) => putVia(key, (tmp) => copyFile(file, tmp)),
    async delete(keys) {
      for (const key of keys) {
        await rm(path(key), { force: true });
        await removeEmptyFolders(base, dirname(path(key)));
      }
    },
    close: () => undefined,
  };
}

/** Every file under the lake's root but a put in progress, by its key. */
async function listFiles(base: string): Promise<LakeObject[]> {
  const out: LakeObject[] = [];
  for (const rel of await filesBelow(base, { into: () => true, keep: (name) => !PUTTING.test(name) })) {
    out.push({ key: rel.join('/'), modifiedMs: (await stat(join(base, ...rel))).mtimeMs });
  }
  return out;
}
