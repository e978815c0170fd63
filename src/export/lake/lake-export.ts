import { rm } from 'node:fs/promises';
import type { Destination } from '../../load/destination.js';
import { EXPORT_TABLES, type ExportSummary } from '../../load/export-plan.js';
import { openParquetReader } from '../../load/parquet-reader.js';
import { refuseForeignLake } from './ownership.js';
import { partitionColumns as lakePartitions } from './lake-schema.js';
import { manifestKey, parseManifest, type TableManifest } from './manifest.js';
import {
  datedPartitionKey,
  exportShape,
  partitionKey,
  recordedVersions,
  versionText,
} from './partition-versions.js';
import { publishTable, type TablePublished } from './publish.js';
import { stagedTables, type StagedTable } from './staged-files.js';
import { makeStagingDir } from './staging-dir.js';
import type { LakeObject, LakeTarget, LakeWrites } from './target.js';

export interface LakeExportOptions {
  readonly includePersonalData: boolean;
  readonly graceMs: number;
  readonly nowMs: number;
}

export interface LakeExportSummary {
  readonly to: string;
  readonly tables: readonly TablePublished[];
  readonly skipped: ExportSummary['skipped'];
  readonly skippedColumns: ExportSummary['skippedColumns'];
  readonly objectsPut: number;
  readonly bytesPut: number;
  readonly objectsDeleted: number;
}

/**
 * The lake export: the folder export writes every table into a private temporary folder (the
 * same files, rules and memory bounds), then each table is published to the lake, where only
 * partitions whose content changed are uploaded and each manifest is replaced in one PUT.
 */
export async function exportToLake(
  db: Destination,
  target: LakeTarget,
  opts: LakeExportOptions,
): Promise<LakeExportSummary> {
  // Listed first: a lake holding something else's objects is refused before any work.
  const listed = await target.list();
  refuseForeignLake(
    target.where,
    listed,
    EXPORT_TABLES.map((t) => t.table),
  );
  const before = await readManifests(target, listed);
  const shapes = new Map(EXPORT_TABLES.map((t) => [t.table, exportShape(t, opts.includePersonalData)]));
  const recorded = new Map([...before].map(([table, m]) => [table, recordedVersions(m)]));
  const staging = await makeStagingDir();
  const reader = await openParquetReader();
  try {
    // Only partitions whose version moved are read and written to the private folder.
    const exported = await db.exportTables({
      outDir: staging,
      format: 'parquet',
      includePersonalData: opts.includePersonalData,
      partitions: (table, p) =>
        recorded.get(table)?.get(partitionKey(p.project, p.period)) !==
        versionText(shapes.get(table) ?? '', p),
    });
    const tables = await stagedTables(
      reader,
      staging,
      exported.tables.map((t) => t.table),
    );
    const writes: LakeWrites = { objectsPut: 0, bytesPut: 0, objectsDeleted: 0 };
    const published: TablePublished[] = [];
    for (const staged of tables) {
      const spec = EXPORT_TABLES.find((t) => t.table === staged.table);
      // The same partition columns as export --ddl declares (lake-schema.ts).
      const partitionColumns = lakePartitions({ grain: spec?.grain }).map((c) => c.name);
      const versions = (exported.tables.find((t) => t.table === staged.table)?.versions ?? []).map((p) => ({
        key: partitionKey(p.project, p.period),
        text: versionText(shapes.get(staged.table) ?? '', p),
      }));
      const now = new Map(versions.map((v) => [v.key, v.text]));
      const old = recorded.get(staged.table) ?? new Map<string, string>();
      const manifest = before.get(staged.table);
      // Files of partitions that still exist at the version they were written at stay as they are.
      const keep = (manifest?.files ?? []).filter((f) => {
        const key = datedPartitionKey(f.partition);
        return key !== undefined && now.has(key) && old.get(key) === now.get(key);
      });
      const changed = stagedOfChangedPartitions(staged, now, old);
      published.push(
        await publishTable(
          target,
          changed.table,
          {
            before: manifest,
            keep,
            versions: changed.versions,
            nowMs: opts.nowMs,
            graceMs: opts.graceMs,
            listed,
            partitionColumns,
          },
          writes,
        ),
      );
    }
    return {
      to: target.where,
      tables: published,
      skipped: exported.skipped,
      skippedColumns: exported.skippedColumns,
      ...writes,
    };
  } finally {
    reader.close();
    await rm(staging, { recursive: true, force: true });
  }
}

/** Every table's manifest the listing shows, read once (one GET each). */
async function readManifests(
  target: LakeTarget,
  listed: readonly LakeObject[],
): Promise<Map<string, TableManifest | undefined>> {
  const out = new Map<string, TableManifest | undefined>();
  const keys = new Set(listed.map((o) => o.key));
  for (const { table } of EXPORT_TABLES) {
    const key = manifestKey(table);
    out.set(table, keys.has(key) ? parseManifest(await target.getText(key)) : undefined);
  }
  return out;
}

/**
 * The staged files of partitions whose version moved (a chunk of several months may have
 * written unchanged ones beside them) and of undated rows, with each one's new version.
 */
function stagedOfChangedPartitions(
  staged: StagedTable,
  now: ReadonlyMap<string, string>,
  old: ReadonlyMap<string, string>,
): { table: StagedTable; versions: Map<string, string> } {
  const versions = new Map<string, string>();
  const files = staged.files.filter((f) => {
    const key = datedPartitionKey(f.partition);
    if (key === undefined) return true;
    const version = now.get(key);
    if (version === undefined || old.get(key) === version) return false;
    versions.set(f.partitionPath, version);
    return true;
  });
  return { table: { ...staged, files }, versions };
}

export function describeLakeExport(s: LakeExportSummary): string {
  const lines = [
    `exported to the lake ${s.to}: ${s.objectsPut} object(s) written (${s.bytesPut} bytes of data), ${s.objectsDeleted} deleted`,
  ];
  const width = Math.max(10, ...s.tables.map((t) => t.table.length));
  for (const t of s.tables) {
    const what = t.manifestWritten
      ? `${t.partitionsChanged} changed partition(s), ${t.filesWritten} new file(s)`
      : 'unchanged';
    const retired = t.filesRetired > 0 ? `, ${t.filesRetired} retired` : '';
    const deleted = t.filesDeleted > 0 ? `, ${t.filesDeleted} deleted` : '';
    lines.push(
      `  ${t.table.padEnd(width)}  ${t.rows} row(s) in ${t.files} file(s): ${what}${retired}${deleted}`,
    );
  }
  for (const c of s.skippedColumns) {
    lines.push(
      `  left out of ${c.table} (personal data, add --include-personal-data): ${c.columns.join(', ')}`,
    );
  }
  return lines.join('\n');
}
