import {
  manifestKey,
  manifestText,
  type ManifestFile,
  type RetiredFile,
  type TableManifest,
} from './manifest.js';
import { isLakeDataFile } from './ownership.js';
import type { StagedTable } from './staged-files.js';
import type { LakeObject, LakeTarget, LakeWrites } from './target.js';

/**
 * Publishes one table's staged files to the lake, in the order that keeps readers whole: new
 * objects first (under names no manifest uses), then the manifest in one PUT, then the deletion
 * of files that left a manifest more than `graceMs` ago. A partition whose file has the same
 * content as the one the manifest names is not uploaded again; a table with nothing new writes
 * nothing.
 */
export interface PublishOptions {
  /** The table's manifest as the export found it (undefined: none yet). */
  readonly before: TableManifest | undefined;
  /** Files of the manifest whose partitions did not change: named again as they are. */
  readonly keep: readonly ManifestFile[];
  /** The version of each staged file's partition, by partition path (none for undated rows). */
  readonly versions: ReadonlyMap<string, string>;
  readonly nowMs: number;
  readonly graceMs: number;
  /** Objects under the lake's root, listed once per export (for files a killed export left). */
  readonly listed: readonly LakeObject[];
  /** The table's partition columns, in folder order. */
  readonly partitionColumns: readonly string[];
}

export interface TablePublished {
  readonly table: string;
  readonly rows: number;
  readonly files: number;
  readonly filesWritten: number;
  readonly filesRetired: number;
  /** Dated partitions whose rows changed since the last export: read and staged again. */
  readonly partitionsChanged: number;
  /** Dated partitions at the version the manifest recorded: not read, their files named again. */
  readonly partitionsUnchanged: number;
  readonly filesDeleted: number;
  readonly manifestWritten: boolean;
}

export async function publishTable(
  target: LakeTarget,
  staged: StagedTable,
  opts: PublishOptions,
  writes: LakeWrites,
): Promise<TablePublished> {
  const key = manifestKey(staged.table);
  const before = opts.before;
  const had = new Map((before?.files ?? []).map((f) => [f.key, f]));
  const files: ManifestFile[] = [...opts.keep];
  let filesWritten = 0;
  let versionsMoved = false;
  for (const f of staged.files) {
    const fileKey = `${staged.table}/${f.partitionPath}/${f.name}`;
    if (!had.has(fileKey)) {
      await target.putFile(fileKey, f.local);
      writes.objectsPut++;
      writes.bytesPut += f.bytes;
      filesWritten++;
    }
    const version = opts.versions.get(f.partitionPath);
    if (had.has(fileKey) && had.get(fileKey)?.version !== version) versionsMoved = true;
    files.push({
      key: fileKey,
      partition: f.partition,
      rows: f.rows,
      bytes: f.bytes,
      sha256: f.sha256,
      ...(version === undefined ? {} : { version }),
    });
  }
  files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const now = new Set(files.map((f) => f.key));
  const since = new Date(opts.nowMs).toISOString();
  const leaving: RetiredFile[] = (before?.files ?? [])
    .filter((f) => !now.has(f.key))
    .map((f) => ({ key: f.key, since }));
  const waiting = [...(before?.retired ?? []).filter((r) => !now.has(r.key)), ...leaving];
  const expired = waiting.filter((r) => Date.parse(r.since) + opts.graceMs <= opts.nowMs);
  const retired = waiting.filter((r) => !expired.includes(r));
  const changed =
    filesWritten > 0 || versionsMoved || leaving.length > 0 || expired.length > 0 || before === undefined;
  if (changed) {
    const manifest: TableManifest = {
      tool: 'mintlify-etl',
      kind: 'lake-manifest',
      version: 1,
      table: staged.table,
      exportedAt: since,
      columns: staged.columns.length > 0 ? staged.columns : (before?.columns ?? []),
      partitionColumns: opts.partitionColumns,
      rows: files.reduce((n, f) => n + f.rows, 0),
      files,
      retired,
    };
    await target.putText(key, manifestText(manifest));
    writes.objectsPut++;
  }
  const orphans = orphanFiles(staged.table, opts, new Set([...now, ...retired.map((r) => r.key)]));
  const doomed = [...expired.map((r) => r.key), ...orphans];
  if (doomed.length > 0) {
    await target.delete(doomed);
    writes.objectsDeleted += doomed.length;
  }
  return {
    table: staged.table,
    rows: files.reduce((n, f) => n + f.rows, 0),
    files: files.length,
    filesWritten,
    filesRetired: leaving.length,
    partitionsChanged: opts.versions.size,
    partitionsUnchanged: new Set(opts.keep.map((f) => f.key.slice(0, f.key.lastIndexOf('/')))).size,
    filesDeleted: doomed.length,
    manifestWritten: changed,
  };
}

/**
 * Data files of the table, named as this tool names them, that no manifest names nor retires
 * (those of an export killed between its uploads and its manifest), older than the grace period:
 * an export running now may be about to name its own newer ones. A file named otherwise is a
 * user's, and stays.
 */
function orphanFiles(table: string, opts: PublishOptions, known: ReadonlySet<string>): string[] {
  return opts.listed
    .filter(
      (o) => isLakeDataFile(table, o.key) && !known.has(o.key) && o.modifiedMs + opts.graceMs <= opts.nowMs,
    )
    .map((o) => o.key);
}
