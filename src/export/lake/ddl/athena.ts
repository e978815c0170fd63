import type { LakeTable } from '../lake-schema.js';
import { parseDuckType, scalarIn, type DuckType } from './duck-type.js';
import type { LakeLocation } from './location.js';

/*
 * Athena (and Trino, Spark or Hive on the same Glue catalog): a Hive external table over each
 * table's folder, its partitions registered by MSCK REPAIR TABLE from the folders as they stand.
 * Partition projection would spare the repair, but project_id can be neither projected (its values
 * are the site's, known only from the folders) nor injected (every query would need a
 * project_id = '…'), and feedback's __HIVE_DEFAULT_PARTITION__ folders fit no integer range.
 */

const TYPES: Readonly<Record<string, string>> = {
  BIGINT: 'bigint',
  INTEGER: 'int',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
  VARCHAR: 'string',
  JSON: 'string',
  DATE: 'date',
  'TIMESTAMP WITH TIME ZONE': 'timestamp',
};

/** Hive's quoted identifier: a backtick inside is doubled. */
export function athenaName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** Hive's string literal reads backslash escapes: a backslash and a quote are escaped. */
export function athenaString(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

export function athenaType(type: DuckType): string {
  if (type.kind === 'list') return `array<${athenaType(type.of)}>`;
  if (type.kind === 'struct')
    return `struct<${type.fields.map((f) => `${f.name}:${athenaType(f.type)}`).join(',')}>`;
  return scalarIn('athena', TYPES, type.name);
}

export function athenaDdl(tables: readonly LakeTable[], location: LakeLocation): string[] {
  return tables.flatMap((t) => {
    const column = (c: { name: string; type: string }): string =>
      `${athenaName(c.name)} ${athenaType(parseDuckType(c.type))}`;
    return [
      `CREATE EXTERNAL TABLE IF NOT EXISTS ${athenaName(t.table)} (
  ${t.columns.map(column).join(',\n  ')}
)
PARTITIONED BY (${t.partitions.map(column).join(', ')})
STORED AS PARQUET
LOCATION ${athenaString(`${location.root}${t.table}/`)};`,
      `MSCK REPAIR TABLE ${athenaName(t.table)};`,
    ];
  });
}
