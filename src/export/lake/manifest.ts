/**
 * A table's `_manifest.json`: the files of its current snapshot. Readers that follow it never see
 * a half-written export: new files go under new names first, then the manifest is replaced in one
 * PUT (or one rename in a folder). Files it no longer names are listed under `retired` with the
 * time they left it, and deleted only after the grace period, so queries in flight finish.
 */
export const MANIFEST_NAME = '_manifest.json';

export interface ManifestFile {
  /** Key relative to the lake's root: <table>/project_id=…/year=…/month=…/[day=…/]data_0-<hash>.parquet */
  readonly key: string;
  /** Hive partition values, by name (project_id, year, month, day). */
  readonly partition: Readonly<Record<string, string>>;
  readonly rows: number;
  readonly bytes: number;
  /** SHA-256 of the file's bytes: also in its name. */
  readonly sha256: string;
  /**
   * The version of the partition's rows in the source when the file was written (the export's
   * shape, rows, and the sum of the rows' hashes; partition-versions.ts): a partition whose
   * version is unchanged is not read again. Absent for undated rows and older manifests.
   */
  readonly version?: string;
}

export interface ManifestColumn {
  readonly name: string;
  /** DuckDB's name of the Parquet column's type (BIGINT, DATE, VARCHAR, TIMESTAMP WITH TIME ZONE, …). */
  readonly type: string;
}

export interface RetiredFile {
  readonly key: string;
  /** ISO instant the file left the manifest: deleted once the grace period has passed. */
  readonly since: string;
}

export interface TableManifest {
  readonly tool: 'mintlify-etl';
  readonly kind: 'lake-manifest';
  readonly version: 1;
  readonly table: string;
  /** When the export that wrote this snapshot ran (ISO). */
  readonly exportedAt: string;
  /** The columns in the files; the partition columns are in `partitionColumns` (folder names). */
  readonly columns: readonly ManifestColumn[];
  readonly partitionColumns: readonly string[];
  readonly rows: number;
  readonly files: readonly ManifestFile[];
  readonly retired: readonly RetiredFile[];
}

export function manifestKey(table: string): string {
  return `${table}/${MANIFEST_NAME}`;
}

/** A manifest read back, or undefined when the text is not one of ours (then treated as absent). */
export function parseManifest(text: string | undefined): TableManifest | undefined {
  if (text === undefined) return undefined;
  try {
    const m = JSON.parse(text) as Partial<TableManifest>;
    if (m.kind !== 'lake-manifest' || !Array.isArray(m.files) || !Array.isArray(m.retired)) return undefined;
    return m as TableManifest;
  } catch {
    return undefined;
  }
}

export function manifestText(m: TableManifest): string {
  return `${JSON.stringify(m, null, 1)}\n`;
}
