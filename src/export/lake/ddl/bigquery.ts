import type { LakeTable } from '../lake-schema.js';
import { parseDuckType, scalarIn, type DuckType } from './duck-type.js';
import type { LakeLocation } from './location.js';

/*
 * BigQuery: an external table over each table's folder with hive partitioning, the partition
 * columns typed (WITH PARTITION COLUMNS) and the files' columns given, so nothing is inferred.
 * BigQuery lists the files at each query: it reads the partitions as they stand.
 */

const TYPES: Readonly<Record<string, string>> = {
  BIGINT: 'INT64',
  INTEGER: 'INT64',
  DOUBLE: 'FLOAT64',
  BOOLEAN: 'BOOL',
  VARCHAR: 'STRING',
  JSON: 'STRING',
  DATE: 'DATE',
  'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP',
};

/** GoogleSQL's quoted identifier: backslash escapes, as in its strings. */
export function bigqueryName(name: string): string {
  return `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;
}

/** GoogleSQL's string literal: a backslash and a quote are escaped with a backslash. */
export function bigqueryString(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

export function bigqueryType(type: DuckType): string {
  if (type.kind === 'list') return `ARRAY<${bigqueryType(type.of)}>`;
  if (type.kind === 'struct')
    return `STRUCT<${type.fields.map((f) => `${f.name} ${bigqueryType(f.type)}`).join(', ')}>`;
  return scalarIn('bigquery', TYPES, type.name);
}

export function bigqueryDdl(tables: readonly LakeTable[], location: LakeLocation): string[] {
  return tables.map((t) => {
    const column = (c: { name: string; type: string }): string =>
      `${bigqueryName(c.name)} ${bigqueryType(parseDuckType(c.type))}`;
    const dir = `${location.root}${t.table}/`;
    // enable_list_inference: a Parquet LIST is an ARRAY (assistant_turns.sources), not a record of `list`.
    return `CREATE OR REPLACE EXTERNAL TABLE ${bigqueryName(t.table)} (
  ${t.columns.map(column).join(',\n  ')}
)
WITH PARTITION COLUMNS (${t.partitions.map(column).join(', ')})
OPTIONS (
  format = 'PARQUET',
  uris = [${bigqueryString(`${dir}*`)}],
  hive_partition_uri_prefix = ${bigqueryString(dir)},
  enable_list_inference = true
);`;
  });
}
