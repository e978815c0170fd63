import { rm } from 'node:fs/promises';
import type { Destination } from '../../load/destination.js';
import { EXPORT_TABLES, type ExportSummary } from '../../load/export-plan.js';
import { openParquetReader } from '../../load/parquet-reader.js';
import { partitionColumns as lakePartitions } from './lake-schema.js';
import { publishTable, type TablePublished } from './publish.js';
import { stagedTables } from './staged-files.js';
import { makeStagingDir } from './staging-dir.js';
import type { LakeTarget, LakeWrites } from './target.js';

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
  const staging = await makeStagingDir();
  const reader = await openParquetReader();
  try {
    const exported = await db.exportTables({
      outDir: staging,
      format: 'parquet',
      includePersonalData: opts.includePersonalData,
    });
    const tables = await stagedTables(
      reader,
      staging,
      exported.tables.map((t) => t.table),
    );
    const listed = await target.list();
    const writes: LakeWrites = { objectsPut: 0, bytesPut: 0, objectsDeleted: 0 };
    const published: TablePublished[] = [];
    for (const staged of tables) {
      const spec = EXPORT_TABLES.find((t) => t.table === staged.table);
      // The same partition columns as export --ddl declares (lake-schema.ts).
      const partitionColumns = lakePartitions({ grain: spec?.grain }).map((c) => c.name);
      published.push(
        await publishTable(
          target,
          staged,
          { nowMs: opts.nowMs, graceMs: opts.graceMs, listed, partitionColumns },
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

export function describeLakeExport(s: LakeExportSummary): string {
  const lines = [
    `exported to the lake ${s.to}: ${s.objectsPut} object(s) written (${s.bytesPut} bytes of data), ${s.objectsDeleted} deleted`,
  ];
  const width = Math.max(10, ...s.tables.map((t) => t.table.length));
  for (const t of s.tables) {
    const what = t.manifestWritten ? `${t.filesWritten} new file(s)` : 'unchanged';
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
