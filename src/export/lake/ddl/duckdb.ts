import { InternalError } from '../../../errors.js';
import type { LakeTable } from '../lake-schema.js';
import { MANIFEST_NAME } from '../manifest.js';
import type { LakeLocation } from './location.js';
import { quoteIdent } from '../../../load/quote-ident.js';

/*
 * DuckDB: a view per table that reads only the files its _manifest.json names. read_parquet takes
 * no subquery for its file list, so the view globs the table's data files and keeps the rows of
 * those the manifest names (a semi-join on each row's file name, which DuckDB also pushes into
 * the scan): files a killed export left, and retired files kept for the grace period, are not
 * read into the result. The manifest is read by every query: the view follows the exports.
 */

/** The column read_parquet adds with each row's file; not one of any table's. */
const FILE_COLUMN = '_lake_file';

/** A manifest can list thousands of files (events: a file per project and day). */
const MANIFEST_MAX_BYTES = 2 ** 30;

export const duckdbName = quoteIdent;

/** Standard SQL's string literal: a quote is doubled, a backslash is itself. */
export function duckdbString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** `text` matched literally by DuckDB's glob: its wildcards as one-character classes. */
export function globLiteral(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}

export function duckdbDdl(tables: readonly LakeTable[], location: LakeLocation): string[] {
  return tables.map((t) => {
    if (t.columns.some((c) => c.name === FILE_COLUMN)) {
      throw new InternalError(`${t.table} has a column named ${FILE_COLUMN}, the view's file column`);
    }
    const dir = `${location.root}${t.table}/`;
    const glob = `${globLiteral(dir)}${t.partitions.map(() => '*/').join('')}*.parquet`;
    const hiveTypes = t.partitions.map((p) => `${duckdbString(p.name)}: ${duckdbString(p.type)}`).join(', ');
    const select = [...t.columns, ...t.partitions].map((c) => duckdbName(c.name)).join(', ');
    return `CREATE OR REPLACE VIEW ${duckdbName(t.table)} AS
SELECT ${select}
FROM read_parquet(${duckdbString(glob)}, hive_partitioning = true, hive_types = {${hiveTypes}},
  union_by_name = true, filename = ${duckdbString(FILE_COLUMN)})
WHERE ${duckdbName(FILE_COLUMN)} IN (
  SELECT ${duckdbString(location.root)} || f.key
  FROM (SELECT unnest(files) AS f
    FROM read_json(${duckdbString(`${dir}${MANIFEST_NAME}`)}, columns = {files: 'STRUCT(key VARCHAR)[]'},
      format = 'unstructured', maximum_object_size = ${MANIFEST_MAX_BYTES}))
);`;
  });
}
