import type { LakeColumn, LakeTable } from '../lake-schema.js';
import { parseDuckType, scalarIn } from './duck-type.js';
import type { LakeLocation } from './location.js';
import { NULL_PARTITION } from '../../../load/export-plan.js';
import { quoteIdent } from '../../../load/quote-ident.js';

/*
 * Snowflake: one external stage on the lake's root, and per table an external table whose
 * columns are expressions: a file column from the Parquet row (VALUE:"name"), a partition column
 * from the file's path (METADATA$FILENAME). Snowflake keeps its own list of the files, refreshed
 * by ALTER EXTERNAL TABLE … REFRESH (or AUTO_REFRESH with the bucket's notifications): it reads
 * the partitions as they stood at the last refresh.
 */

/** The stage every table's LOCATION names. */
export const SNOWFLAKE_STAGE = 'mintlify_lake';

const TYPES: Readonly<Record<string, string>> = {
  BIGINT: 'BIGINT',
  INTEGER: 'INTEGER',
  DOUBLE: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
  VARCHAR: 'VARCHAR',
  JSON: 'VARCHAR',
  DATE: 'DATE',
  'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP_TZ',
};

/** Snowflake's quoted identifier (case kept as written): a double quote inside is doubled. */
export const snowflakeName = quoteIdent;

/** Snowflake's string literal reads backslash escapes: a backslash and a quote are escaped. */
export function snowflakeString(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Lists and structs are Snowflake's semi-structured ARRAY and OBJECT. */
export function snowflakeType(duckType: string): string {
  const type = parseDuckType(duckType);
  if (type.kind === 'list') return 'ARRAY';
  if (type.kind === 'struct') return 'OBJECT';
  return scalarIn('snowflake', TYPES, type.name);
}

const FILE_FORMAT = 'FILE_FORMAT = (TYPE = PARQUET USE_LOGICAL_TYPE = TRUE)';

/**
 * A partition column's value from the file's path: the folder `name=value` among the last ones,
 * read from the end so that a prefix holding `year=` too cannot match; the NULL folder is NULL.
 */
function partitionExpression(p: LakeColumn, all: readonly LakeColumn[]): string {
  const path = `${all.map((c) => `${c.name}=([^/]*)`).join('/')}/[^/]*$`;
  const group = all.indexOf(p) + 1;
  const value = `NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, ${snowflakeString(path)}, 1, 1, 'e', ${group}), ${snowflakeString(NULL_PARTITION)})`;
  return `${snowflakeName(p.name)} ${snowflakeType(p.type)} AS (${value}::${snowflakeType(p.type)})`;
}

export function snowflakeDdl(tables: readonly LakeTable[], location: LakeLocation): string[] {
  const stage = snowflakeName(SNOWFLAKE_STAGE);
  return [
    `CREATE STAGE IF NOT EXISTS ${stage}
  URL = ${snowflakeString(location.root)}
  ${FILE_FORMAT};`,
    ...tables.map((t) => {
      const columns = [
        ...t.columns.map(
          (c) =>
            `${snowflakeName(c.name)} ${snowflakeType(c.type)} AS (VALUE:${snowflakeName(c.name)}::${snowflakeType(c.type)})`,
        ),
        ...t.partitions.map((p) => partitionExpression(p, t.partitions)),
      ];
      return `CREATE OR REPLACE EXTERNAL TABLE ${snowflakeName(t.table)} (
  ${columns.join(',\n  ')}
)
PARTITION BY (${t.partitions.map((p) => snowflakeName(p.name)).join(', ')})
LOCATION = @${stage}/${t.table}/
AUTO_REFRESH = FALSE
${FILE_FORMAT};`;
    }),
  ];
}
