import { InternalError } from '../../errors.js';
import type { ContractTypes } from '../../load/contract-types.js';
import type { ManifestColumn } from './manifest.js';
import { EXPORT_TABLES, NEVER_EXPORTED, fileColumns, type TableSpec } from '../../load/export-plan.js';

/**
 * What a lake table is to a reader: the columns inside its Parquet files with their types, and the
 * hive partition columns its folders carry, in folder order. Types are DuckDB's names (the export
 * writes the files with DuckDB's COPY); each engine's DDL maps them.
 */
export type LakeColumn = ManifestColumn;

export interface LakeTable {
  readonly table: string;
  readonly columns: readonly LakeColumn[];
  readonly partitions: readonly LakeColumn[];
}

/**
 * project_id=…/year=YYYY/month=MM/[day=YYYY-MM-DD/]: month is two digits in the folder name and
 * read as a number; the day folder of a day-grain table is its `day` column.
 */
export function partitionColumns(spec: { readonly grain?: TableSpec['grain'] | undefined }): LakeColumn[] {
  return [
    { name: 'project_id', type: 'VARCHAR' },
    { name: 'year', type: 'INTEGER' },
    { name: 'month', type: 'INTEGER' },
    ...(spec.grain === 'day' ? [{ name: 'day', type: 'DATE' }] : []),
  ];
}

/**
 * The tables a lake export can write, with the columns its files hold: those of the export's plan
 * (export-plan.ts: personal ones only with `includePersonalData`), typed by the contract (the
 * migrations), the same source the files' types come from.
 */
export function lakeTables(types: ContractTypes, includePersonalData: boolean): LakeTable[] {
  return EXPORT_TABLES.filter(
    (spec) => !NEVER_EXPORTED.has(spec.table) && (spec.personal !== true || includePersonalData),
  ).map((spec) => {
    const known = types.get(spec.table);
    const columns = fileColumns(spec, includePersonalData).map((name) => {
      const type = known?.get(name);
      if (type === undefined) {
        throw new InternalError(`the contract has no column ${spec.table}.${name} that export writes`, {
          table: spec.table,
          column: name,
        });
      }
      return { name, type };
    });
    return { table: spec.table, columns, partitions: partitionColumns(spec) };
  });
}
