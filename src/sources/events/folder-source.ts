import { createReadStream } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EventObjectGoneError, EventSourceUsageError } from './errors.js';
import type { EventSource, EventSourceStats, TopEntry } from './event-source.js';
import { compareKeys } from './list-start.js';
import type { EventObject } from './types.js';

/**
 * A local folder laid out like the bucket. Keys are relative paths with `/`. Skipped: dotfiles
 * and dot-folders (`.git`, rclone's and editors' state), partial downloads (`*.partial`, `*.tmp`,
 * and `aws s3 sync`'s NAME.EXT.<8 hex digits>, which it renames to NAME.EXT once whole) and
 * symbolic links that lead out of the folder or to a folder (a link may loop).
 */
const AWS_CLI_PART = /\.[^.]+\.[0-9A-Fa-f]{8}$/;
const SKIPPED = (name: string): boolean =>
  name.startsWith('.') || name.endsWith('.partial') || name.endsWith('.tmp') || AWS_CLI_PART.test(name);

export async function openFolderSource(spec: string): Promise<EventSource> {
  const path = resolve(/^file:\/\//i.test(spec) ? fileURLToPath(spec) : spec);
  let kind;
  try {
    kind = await stat(path);
  } catch (e) {
    throw new EventSourceUsageError(
      `the events folder ${path} does not exist (give s3://BUCKET/PREFIX or a folder laid out like the bucket)`,
      { path },
      { cause: e },
    );
  }
  if (!kind.isDirectory()) {
    throw new EventSourceUsageError(
      `the events source ${path} is not a folder (give s3://BUCKET/PREFIX or a folder)`,
      {
        path,
      },
    );
  }
  return new FolderSource(path, await realpath(path));
}

class FolderSource implements EventSource {
  readonly label: string;
  private readonly counts = { listRequests: 0, getRequests: 0 };

  constructor(
    private readonly root: string,
    private readonly realRoot: string,
  ) {
    this.label = `${pathToFileURL(root).href.replace(/\/$/, '')}/`;
  }

  get stats(): EventSourceStats {
    return { ...this.counts };
  }

  async *list(startAfter?: string, under = ''): AsyncIterable<EventObject> {
    this.counts.listRequests++;
    const keys: string[] = [];
    const dir = under.replace(/\/$/, '');
    if (dir === '' || (await this.isFolder(dir))) await this.walk(dir, startAfter, keys);
    keys.sort(compareKeys);
    for (const key of keys) {
      const obj = await this.object(key);
      if (obj !== undefined) yield obj;
    }
  }

  async *listTop(startAfter?: string): AsyncIterable<TopEntry> {
    this.counts.listRequests++;
    const entries: { key: string; folder: boolean }[] = [];
    for (const e of await readdir(this.root, { withFileTypes: true })) {
      if (SKIPPED(e.name)) continue;
      if (e.isDirectory()) entries.push({ key: `${e.name}/`, folder: true });
      else if (e.isFile() || (e.isSymbolicLink() && (await this.linkInside(e.name))))
        entries.push({ key: e.name, folder: false });
    }
    entries.sort((a, b) => compareKeys(a.key, b.key));
    for (const { key, folder } of entries) {
      if (startAfter !== undefined && compareKeys(key, startAfter) <= 0) continue;
      if (folder) yield { prefix: key };
      else {
        const object = await this.object(key);
        if (object !== undefined) yield { object };
      }
    }
  }

  /** The listed object of a key; undefined when it is gone since the walk. */
  private async object(key: string): Promise<EventObject | undefined> {
    const s = await stat(join(this.root, key)).catch(() => undefined);
    if (s === undefined || !s.isFile()) return undefined;
    return { key, size: s.size, etag: `${s.size}-${s.mtimeMs}` };
  }

  /** A real folder (not a link) under the root: a sub-prefix the ledger knows may be gone. */
  private async isFolder(dir: string): Promise<boolean> {
    const s = await lstat(join(this.root, dir)).catch(() => undefined);
    return s !== undefined && s.isDirectory();
  }

  /** Collects the keys under `dir` (relative, '' for the root) after `startAfter`. */
  private async walk(dir: string, startAfter: string | undefined, out: string[]): Promise<void> {
    const entries = await readdir(join(this.root, dir), { withFileTypes: true });
    for (const e of entries) {
      if (SKIPPED(e.name)) continue;
      const key = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory()) {
        // Every key under it starts with `key/`: none is after startAfter when `key/` sorts before it and is not its prefix.
        const under = `${key}/`;
        if (startAfter !== undefined && compareKeys(under, startAfter) < 0 && !startAfter.startsWith(under))
          continue;
        await this.walk(key, startAfter, out);
      } else if (startAfter !== undefined && compareKeys(key, startAfter) <= 0) {
        continue;
      } else if (e.isFile() || (e.isSymbolicLink() && (await this.linkInside(key)))) {
        out.push(key);
      }
    }
  }

  /** A link to a regular file inside the folder. */
  private async linkInside(key: string): Promise<boolean> {
    try {
      const target = await realpath(join(this.root, key));
      return this.inside(target) && (await stat(target)).isFile();
    } catch {
      return false;
    }
  }

  private inside(real: string): boolean {
    const rel = relative(this.realRoot, real);
    return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
  }

  async stat(key: string): Promise<EventObject | undefined> {
    const path = resolve(this.root, ...key.split('/'));
    try {
      const real = await realpath(path);
      const s = await stat(real);
      if (!s.isFile() || !this.inside(real)) return undefined;
      return { key, size: s.size, etag: `${s.size}-${s.mtimeMs}` };
    } catch {
      return undefined;
    }
  }

  async open(obj: EventObject): Promise<Readable> {
    this.counts.getRequests++;
    const path = resolve(this.root, ...obj.key.split('/'));
    let real: string;
    try {
      real = await realpath(path);
      if ((await lstat(real)).isFile() && this.inside(real)) return createReadStream(real);
    } catch (e) {
      throw new EventObjectGoneError(
        `${this.label}${obj.key} is gone (deleted or moved since it was listed)`,
        {
          source: this.label,
          key: obj.key,
        },
        { cause: e },
      );
    }
    throw new EventSourceUsageError(`${this.label}${obj.key} is outside the events folder or not a file`, {
      source: this.label,
      key: obj.key,
    });
  }

  close(): void {}
}
