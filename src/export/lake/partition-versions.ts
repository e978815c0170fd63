import { createHash } from 'node:crypto';
import {
  exportedColumns,
  NULL_PARTITION,
  type PartitionVersion,
  type TableSpec,
} from '../../load/export-plan.js';
import type { TableManifest } from './manifest.js';

/**
 * Which partitions a lake export must read again: those whose version in the source differs from
 * the one the manifest recorded for their files. The version holds the export's shape (the
 * columns written, masked or left out), so a changed mode or a new column rewrites every partition.
 */

/** project_id and period of a dated partition: the key versions are compared by. */
export function partitionKey(project: string, period: string): string {
  return `${project}\u0000${period}`;
}

/** The key of a file's partition (its folders' values); undefined for undated rows (always written again). */
export function datedPartitionKey(partition: Readonly<Record<string, string>>): string | undefined {
  const { project_id: project, year, month, day } = partition;
  if (project === undefined || year === undefined || month === undefined || year === NULL_PARTITION)
    return undefined;
  return partitionKey(project, day ?? `${year}-${month.padStart(2, '0')}-01`);
}

/** What the export writes of a table, as one short hash: part of every version. */
export function exportShape(spec: TableSpec, includePersonalData: boolean): string {
  const shape = {
    columns: exportedColumns(spec, includePersonalData),
    masked: includePersonalData ? {} : (spec.maskedColumns ?? {}),
    grain: spec.grain ?? 'month',
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 12);
}

export function versionText(shape: string, p: PartitionVersion): string {
  return `${shape}:${p.rows}:${p.version}`;
}

/** Per dated partition, the version the manifest recorded (only when all its files agree). */
export function recordedVersions(manifest: TableManifest | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const mixed = new Set<string>();
  for (const f of manifest?.files ?? []) {
    const key = datedPartitionKey(f.partition);
    if (key === undefined) continue;
    const seen = out.get(key);
    if (f.version === undefined || (seen !== undefined && seen !== f.version)) mixed.add(key);
    else out.set(key, f.version);
  }
  for (const key of mixed) out.delete(key);
  return out;
}
