import { copyFile, mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
        await pruneEmpty(base, dirname(path(key)));
      }
    },
    close: () => undefined,
  };
}

async function listFiles(base: string): Promise<LakeObject[]> {
  const out: LakeObject[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && !PUTTING.test(entry.name)) {
        out.push({ key: relative(base, full).split(sep).join('/'), modifiedMs: (await stat(full)).mtimeMs });
      }
    }
  };
  await walk(base);
  return out;
}

/** Removes the folders a deletion left empty, up to (not including) the lake's root. */
async function pruneEmpty(base: string, dir: string): Promise<void> {
  let at = dir;
  while (at !== base && at.startsWith(base + sep)) {
    try {
      await rmdir(at);
    } catch {
      return; // not empty: nor is any folder above
    }
    at = dirname(at);
  }
}
