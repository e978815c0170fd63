import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { filesBelow } from '../../util/folder-walk.js';
import { join } from 'node:path';
import type { ParquetReader } from '../../load/parquet-reader.js';
import type { ManifestColumn } from './manifest.js';

/**
 * The Parquet files a folder export wrote for one table, as the lake will name them: the
 * partition folders as they are, the file named after its content's hash, so that a partition
 * whose rows did not change keeps its object and one whose rows changed gets a new one.
 */
export interface StagedFile {
  readonly local: string;
  /** project_id=…/year=…/month=…[/day=…] */
  readonly partitionPath: string;
  readonly partition: Readonly<Record<string, string>>;
  /** data_0-<first 16 hex of the SHA-256>.parquet */
  readonly name: string;
  readonly sha256: string;
  readonly rows: number;
  readonly bytes: number;
}

export interface StagedTable {
  readonly table: string;
  readonly files: readonly StagedFile[];
  /** The files' columns; empty when the table has no file. */
  readonly columns: readonly ManifestColumn[];
}

const DATA_FILE = /^(data_\d+)\.parquet$/;

/** The tables a folder export wrote under `dir` (one folder each, hive partitions below). */
export async function stagedTables(
  reader: ParquetReader,
  dir: string,
  tables: readonly string[],
): Promise<StagedTable[]> {
  const out: StagedTable[] = [];
  for (const table of tables) {
    const files: StagedFile[] = [];
    for (const rel of await partitionFiles(join(dir, table)))
      files.push(await describeFile(reader, dir, table, rel));
    const first = files[0];
    out.push({ table, files, columns: first === undefined ? [] : await reader.columns(first.local) });
  }
  return out;
}

/** Data files below `root`, as their folder names (`k=v`, …) and file name. */
function partitionFiles(root: string): Promise<string[][]> {
  return filesBelow(root, { into: (name) => name.includes('='), keep: (name) => DATA_FILE.test(name) });
}

async function describeFile(
  reader: ParquetReader,
  dir: string,
  table: string,
  rel: readonly string[],
): Promise<StagedFile> {
  const local = join(dir, table, ...rel);
  const folders = rel.slice(0, -1);
  const sha256 = await fileHash(local);
  const stem = DATA_FILE.exec(rel.at(-1) ?? '')?.[1] ?? 'data_0';
  const partition: Record<string, string> = {};
  for (const f of folders) {
    const at = f.indexOf('=');
    partition[decodeURIComponent(f.slice(0, at))] = decodeURIComponent(f.slice(at + 1));
  }
  return {
    local,
    partitionPath: folders.join('/'),
    partition,
    name: `${stem}-${sha256.slice(0, 16)}.parquet`,
    sha256,
    rows: await reader.rowCount(local),
    bytes: (await stat(local)).size,
  };
}

function fileHash(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
