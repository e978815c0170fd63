import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlDir } from '../../paths.js';
import { numberedSqlFiles } from '../sql-source.js';
import { runSqlFile } from './sql.js';

/** Column name -> DuckDB type, per table. */
export type ContractTypes = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * The DuckDB column types of every table, from the DuckDB migrations applied to an empty in-memory
 * database: the export's files carry these types from either destination (PostgreSQL's rows are
 * typed with them on their way to the same COPY), so they are also what `export --ddl` declares.
 */
export async function contractTypes(duck: DuckDBConnection, dir: string = sqlDir()): Promise<ContractTypes> {
  await duck.run("ATTACH ':memory:' AS contract");
  await duck.run('USE contract');
  try {
    for (const f of await numberedSqlFiles(join(dir, 'schema'))) await runSqlFile(duck, f.file);
    const rows = (
      await duck.runAndReadAll(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = 'contract' AND schema_name = 'main'",
      )
    ).getRows();
    const types = new Map<string, Map<string, string>>();
    for (const [table, column, type] of rows) {
      const cols = types.get(String(table)) ?? new Map<string, string>();
      cols.set(String(column), String(type));
      types.set(String(table), cols);
    }
    return types;
  } finally {
    await duck.run('USE memory');
    await duck.run('DETACH contract');
  }
}

/** The contract's types read in a DuckDB of their own, closed before this returns. */
export async function readDuckContractTypes(): Promise<ContractTypes> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const duck = await instance.connect();
  try {
    return await contractTypes(duck);
  } finally {
    duck.closeSync();
    instance.closeSync();
  }
}
