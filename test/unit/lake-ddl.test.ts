import { describe, expect, it } from 'vitest';
import { InternalError, UsageError } from '../../src/errors.js';
import { athenaName, athenaType } from '../../src/export/lake/ddl/athena.js';
import { bigqueryName, bigqueryType } from '../../src/export/lake/ddl/bigquery.js';
import { DDL_DIALECTS, type DdlDialect } from '../../src/export/lake/ddl/dialects.js';
import { parseDuckType } from '../../src/export/lake/ddl/duck-type.js';
import { duckdbName } from '../../src/export/lake/ddl/duckdb.js';
import { lakeDdl } from '../../src/export/lake/ddl/lake-ddl.js';
import { lakeLocation, type LakeLocation } from '../../src/export/lake/ddl/location.js';
import { snowflakeName, snowflakeType } from '../../src/export/lake/ddl/snowflake.js';
import { lakeTables, partitionColumns, type LakeTable } from '../../src/export/lake/lake-schema.js';
import { readContractTypes } from '../../src/load/contract-types.js';

/*
 * export --ddl's statements for a fixed contract, as golden text: one table with a column of each
 * type the export writes, and one day-partitioned table. DuckDB's statements are also run against
 * a real export (test/integration/export-lake-ddl.test.ts); the other engines are not here to run.
 */

const KINDS: LakeTable = {
  table: 'kinds',
  columns: [
    { name: 'day', type: 'DATE' },
    { name: 'n', type: 'BIGINT' },
    { name: 'i', type: 'INTEGER' },
    { name: 'x', type: 'DOUBLE' },
    { name: 'b', type: 'BOOLEAN' },
    { name: 's', type: 'VARCHAR' },
    { name: 'j', type: 'JSON' },
    { name: 'at', type: 'TIMESTAMP WITH TIME ZONE' },
    { name: 'sources', type: 'STRUCT(title VARCHAR, url VARCHAR)[]' },
  ],
  partitions: partitionColumns({}),
};
const EVENTS: LakeTable = {
  table: 'events',
  columns: [{ name: 'event_id', type: 'VARCHAR' }],
  partitions: partitionColumns({ grain: 'day' }),
};
const S3: LakeLocation = { kind: 's3', root: 's3://lake/warehouse/' };

/** Each DuckDB type the fixture holds, as each engine declares it. */
const TYPE_NAMES: Record<string, Record<Exclude<DdlDialect, 'duckdb'>, string>> = {
  DATE: { athena: 'date', bigquery: 'DATE', snowflake: 'DATE' },
  BIGINT: { athena: 'bigint', bigquery: 'INT64', snowflake: 'BIGINT' },
  INTEGER: { athena: 'int', bigquery: 'INT64', snowflake: 'INTEGER' },
  DOUBLE: { athena: 'double', bigquery: 'FLOAT64', snowflake: 'DOUBLE' },
  BOOLEAN: { athena: 'boolean', bigquery: 'BOOL', snowflake: 'BOOLEAN' },
  VARCHAR: { athena: 'string', bigquery: 'STRING', snowflake: 'VARCHAR' },
  JSON: { athena: 'string', bigquery: 'STRING', snowflake: 'VARCHAR' },
  'TIMESTAMP WITH TIME ZONE': { athena: 'timestamp', bigquery: 'TIMESTAMP', snowflake: 'TIMESTAMP_TZ' },
  'STRUCT(title VARCHAR, url VARCHAR)[]': {
    athena: 'array<struct<title:string,url:string>>',
    bigquery: 'ARRAY<STRUCT<title STRING, url STRING>>',
    snowflake: 'ARRAY',
  },
};

/**
 * The string literals of a statement and the statement with each replaced by `?`: `backslash`
 * for the engines whose literals read backslash escapes (Hive, GoogleSQL, Snowflake), else
 * standard SQL's doubled quote. A quote that escaped its literal changes the skeleton.
 */
function literalsOf(sql: string, backslash: boolean): { skeleton: string; literals: string[] } {
  let skeleton = '';
  const literals: string[] = [];
  for (let i = 0; i < sql.length; i++) {
    if (sql[i] !== "'") {
      skeleton += sql[i];
      continue;
    }
    let value = '';
    for (i++; sql[i] !== "'" || (!backslash && sql[i + 1] === "'"); i++) {
      if (i >= sql.length) throw new Error(`an unterminated literal in ${sql}`);
      if (backslash && sql[i] === '\\') i++;
      else if (!backslash && sql[i] === "'") i++;
      value += sql[i];
    }
    skeleton += '?';
    literals.push(value);
  }
  return { skeleton, literals };
}

describe('export --ddl for a fixed contract (golden text)', () => {
  it('athena: a Hive external table per table, partitions registered by MSCK REPAIR TABLE', () => {
    expect(lakeDdl('athena', [KINDS, EVENTS], S3).join('\n\n')).toMatchInlineSnapshot(`
      "CREATE EXTERNAL TABLE IF NOT EXISTS \`kinds\` (
        \`day\` date,
        \`n\` bigint,
        \`i\` int,
        \`x\` double,
        \`b\` boolean,
        \`s\` string,
        \`j\` string,
        \`at\` timestamp,
        \`sources\` array<struct<title:string,url:string>>
      )
      PARTITIONED BY (\`project_id\` string, \`year\` int, \`month\` int)
      STORED AS PARQUET
      LOCATION 's3://lake/warehouse/kinds/';

      MSCK REPAIR TABLE \`kinds\`;

      CREATE EXTERNAL TABLE IF NOT EXISTS \`events\` (
        \`event_id\` string
      )
      PARTITIONED BY (\`project_id\` string, \`year\` int, \`month\` int, \`day\` date)
      STORED AS PARQUET
      LOCATION 's3://lake/warehouse/events/';

      MSCK REPAIR TABLE \`events\`;"
    `);
  });

  it('bigquery: an external table with hive partition columns over the table folder', () => {
    expect(lakeDdl('bigquery', [KINDS, EVENTS], S3).join('\n\n')).toMatchInlineSnapshot(`
      "CREATE OR REPLACE EXTERNAL TABLE \`kinds\` (
        \`day\` DATE,
        \`n\` INT64,
        \`i\` INT64,
        \`x\` FLOAT64,
        \`b\` BOOL,
        \`s\` STRING,
        \`j\` STRING,
        \`at\` TIMESTAMP,
        \`sources\` ARRAY<STRUCT<title STRING, url STRING>>
      )
      WITH PARTITION COLUMNS (\`project_id\` STRING, \`year\` INT64, \`month\` INT64)
      OPTIONS (
        format = 'PARQUET',
        uris = ['s3://lake/warehouse/kinds/*'],
        hive_partition_uri_prefix = 's3://lake/warehouse/kinds/',
        enable_list_inference = true
      );

      CREATE OR REPLACE EXTERNAL TABLE \`events\` (
        \`event_id\` STRING
      )
      WITH PARTITION COLUMNS (\`project_id\` STRING, \`year\` INT64, \`month\` INT64, \`day\` DATE)
      OPTIONS (
        format = 'PARQUET',
        uris = ['s3://lake/warehouse/events/*'],
        hive_partition_uri_prefix = 's3://lake/warehouse/events/',
        enable_list_inference = true
      );"
    `);
  });

  it('snowflake: one stage, then an external table whose partitions come from METADATA$FILENAME', () => {
    expect(lakeDdl('snowflake', [KINDS, EVENTS], S3).join('\n\n')).toMatchInlineSnapshot(`
      "CREATE STAGE IF NOT EXISTS "mintlify_lake"
        URL = 's3://lake/warehouse/'
        FILE_FORMAT = (TYPE = PARQUET USE_LOGICAL_TYPE = TRUE);

      CREATE OR REPLACE EXTERNAL TABLE "kinds" (
        "day" DATE AS (VALUE:"day"::DATE),
        "n" BIGINT AS (VALUE:"n"::BIGINT),
        "i" INTEGER AS (VALUE:"i"::INTEGER),
        "x" DOUBLE AS (VALUE:"x"::DOUBLE),
        "b" BOOLEAN AS (VALUE:"b"::BOOLEAN),
        "s" VARCHAR AS (VALUE:"s"::VARCHAR),
        "j" VARCHAR AS (VALUE:"j"::VARCHAR),
        "at" TIMESTAMP_TZ AS (VALUE:"at"::TIMESTAMP_TZ),
        "sources" ARRAY AS (VALUE:"sources"::ARRAY),
        "project_id" VARCHAR AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/[^/]*$', 1, 1, 'e', 1), '__HIVE_DEFAULT_PARTITION__')::VARCHAR),
        "year" INTEGER AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/[^/]*$', 1, 1, 'e', 2), '__HIVE_DEFAULT_PARTITION__')::INTEGER),
        "month" INTEGER AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/[^/]*$', 1, 1, 'e', 3), '__HIVE_DEFAULT_PARTITION__')::INTEGER)
      )
      PARTITION BY ("project_id", "year", "month")
      LOCATION = @"mintlify_lake"/kinds/
      AUTO_REFRESH = FALSE
      FILE_FORMAT = (TYPE = PARQUET USE_LOGICAL_TYPE = TRUE);

      CREATE OR REPLACE EXTERNAL TABLE "events" (
        "event_id" VARCHAR AS (VALUE:"event_id"::VARCHAR),
        "project_id" VARCHAR AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/day=([^/]*)/[^/]*$', 1, 1, 'e', 1), '__HIVE_DEFAULT_PARTITION__')::VARCHAR),
        "year" INTEGER AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/day=([^/]*)/[^/]*$', 1, 1, 'e', 2), '__HIVE_DEFAULT_PARTITION__')::INTEGER),
        "month" INTEGER AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/day=([^/]*)/[^/]*$', 1, 1, 'e', 3), '__HIVE_DEFAULT_PARTITION__')::INTEGER),
        "day" DATE AS (NULLIF(REGEXP_SUBSTR(METADATA$FILENAME, 'project_id=([^/]*)/year=([^/]*)/month=([^/]*)/day=([^/]*)/[^/]*$', 1, 1, 'e', 4), '__HIVE_DEFAULT_PARTITION__')::DATE)
      )
      PARTITION BY ("project_id", "year", "month", "day")
      LOCATION = @"mintlify_lake"/events/
      AUTO_REFRESH = FALSE
      FILE_FORMAT = (TYPE = PARQUET USE_LOGICAL_TYPE = TRUE);"
    `);
  });

  it('duckdb: a view reading the files the manifest names', () => {
    expect(lakeDdl('duckdb', [KINDS, EVENTS], S3).join('\n\n')).toMatchInlineSnapshot(`
      "CREATE OR REPLACE VIEW "kinds" AS
      SELECT "day", "n", "i", "x", "b", "s", "j", "at", "sources", "project_id", "year", "month"
      FROM read_parquet('s3://lake/warehouse/kinds/*/*/*/*.parquet', hive_partitioning = true, hive_types = {'project_id': 'VARCHAR', 'year': 'INTEGER', 'month': 'INTEGER'},
        union_by_name = true, filename = '_lake_file')
      WHERE "_lake_file" IN (
        SELECT 's3://lake/warehouse/' || f.key
        FROM (SELECT unnest(files) AS f
          FROM read_json('s3://lake/warehouse/kinds/_manifest.json', columns = {files: 'STRUCT(key VARCHAR)[]'},
            format = 'unstructured', maximum_object_size = 1073741824))
      );

      CREATE OR REPLACE VIEW "events" AS
      SELECT "event_id", "project_id", "year", "month", "day"
      FROM read_parquet('s3://lake/warehouse/events/*/*/*/*/*.parquet', hive_partitioning = true, hive_types = {'project_id': 'VARCHAR', 'year': 'INTEGER', 'month': 'INTEGER', 'day': 'DATE'},
        union_by_name = true, filename = '_lake_file')
      WHERE "_lake_file" IN (
        SELECT 's3://lake/warehouse/' || f.key
        FROM (SELECT unnest(files) AS f
          FROM read_json('s3://lake/warehouse/events/_manifest.json', columns = {files: 'STRUCT(key VARCHAR)[]'},
            format = 'unstructured', maximum_object_size = 1073741824))
      );"
    `);
  });

  it.each(Object.entries(TYPE_NAMES))('declares DuckDB %s as each engine names it', (duck, names) => {
    const column = KINDS.columns.find((c) => c.type === duck)!.name;
    // A column's declaration ends its line: a comma, or the last one's line break.
    const declares = (sql: string | undefined, decl: string): boolean =>
      sql !== undefined && (sql.includes(`${decl},\n`) || sql.includes(`${decl}\n`));
    expect(declares(lakeDdl('athena', [KINDS], S3)[0], `${athenaName(column)} ${names.athena}`)).toBe(true);
    expect(declares(lakeDdl('bigquery', [KINDS], S3)[0], `${bigqueryName(column)} ${names.bigquery}`)).toBe(
      true,
    );
    expect(lakeDdl('snowflake', [KINDS], S3)[1]).toContain(
      `${snowflakeName(column)} ${names.snowflake} AS (VALUE:${snowflakeName(column)}::${names.snowflake})`,
    );
  });

  it('has a golden type for every type the contract gives an exported column', async () => {
    const used = new Set(
      lakeTables(await readContractTypes(), true).flatMap((t) => t.columns.map((c) => c.type)),
    );
    expect([...used].filter((t) => TYPE_NAMES[t] === undefined)).toEqual([]);
  });

  it('fails loudly on a DuckDB type an engine has no name for, naming it', () => {
    expect(() => athenaType(parseDuckType('HUGEINT'))).toThrow(InternalError);
    expect(() => bigqueryType(parseDuckType('UUID[]'))).toThrow(/bigquery has no type for DuckDB's UUID/);
    expect(() => snowflakeType('INTERVAL')).toThrow(/snowflake has no type for DuckDB's INTERVAL/);
  });

  it('leaves personal columns out unless asked, and refuses a contract that lacks an exported column', async () => {
    const types = await readContractTypes();
    const events = (personal: boolean): string[] =>
      lakeTables(types, personal)
        .find((t) => t.table === 'analytics_events')!
        .columns.map((c) => c.name);
    expect(events(false)).not.toContain('anon_id');
    expect(events(true)).toEqual(expect.arrayContaining(['anon_id', 'session_id', 'user_id', 'properties']));
    const lacking = new Map(types);
    lacking.set('page_daily', new Map([...types.get('page_daily')!].filter(([c]) => c !== 'path')));
    expect(() => lakeTables(lacking, false)).toThrow(/the contract has no column page_daily\.path/);
  });
});

describe('export --ddl quoting: a location with odd characters neither breaks nor injects', () => {
  // Each engine's worst: what its literals escape, and (DuckDB) its glob's wildcards.
  const ODD: Record<DdlDialect, string> = {
    athena: 's3://lake/it\'s a \\ "q" `b` * ; DROP TABLE x; --/',
    bigquery: 's3://lake/it\'s a \\ "q" `b` ; DROP TABLE x; --/',
    snowflake: 's3://lake/it\'s a \\ "q" `b` * ; DROP TABLE x; --/',
    duckdb: 's3://lake/it\'s a "q" [1] * ? {a} ; DROP TABLE x; --/',
  };
  const BACKSLASH_LITERALS: Record<DdlDialect, boolean> = {
    athena: true,
    bigquery: true,
    snowflake: true,
    duckdb: false,
  };

  it.each(DDL_DIALECTS)(
    '%s: the same statements as for a plain prefix, the prefix inside its literals',
    (dialect) => {
      const odd = lakeLocation(ODD[dialect], dialect);
      expect(odd.root).toBe(ODD[dialect]);
      const plain = lakeDdl(dialect, [KINDS, EVENTS], S3);
      const quoted = lakeDdl(dialect, [KINDS, EVENTS], odd);
      expect(quoted).toHaveLength(plain.length);
      for (const [i, statement] of quoted.entries()) {
        const got = literalsOf(statement, BACKSLASH_LITERALS[dialect]);
        const want = literalsOf(plain[i]!, BACKSLASH_LITERALS[dialect]);
        expect(got.skeleton).toBe(want.skeleton);
        const unglobbed = (s: string): string => s.replace(/\[([*?[])\]/g, '$1');
        expect(got.literals.map(unglobbed)).toEqual(
          want.literals.map((l) => l.replaceAll(S3.root, odd.root)),
        );
      }
    },
  );

  it('quotes identifiers as each engine reads them', () => {
    expect(athenaName('a`b')).toBe('`a``b`');
    expect(bigqueryName('a`b\\')).toBe('`a\\`b\\\\`');
    expect(snowflakeName('a"b')).toBe('"a""b"');
    expect(duckdbName('a"b')).toBe('"a""b"');
  });

  it('refuses, as a usage error, what a location cannot be for an engine', () => {
    expect(() => lakeLocation('./lake', 'athena')).toThrow(UsageError);
    expect(() => lakeLocation('s3://lake/a\nb', 'snowflake')).toThrow(/control character/);
    expect(() => lakeLocation('s3://lake/a*b', 'bigquery')).toThrow(/holds \*/);
    expect(() => lakeLocation('lake\\x', 'duckdb')).toThrow(/holds \\/);
    expect(lakeLocation('s3://lake/a*b', 'athena').root).toBe('s3://lake/a*b/');
    expect(lakeLocation('lake', 'duckdb')).toEqual({ kind: 'folder', root: `${process.cwd()}/lake/` });
  });
});
