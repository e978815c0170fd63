import { DuckDBInstance } from '@duckdb/node-api';

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** What a Parquet file holds: its row count, its columns and their types. */
export interface ParquetReader {
  rowCount(file: string): Promise<number>;
  columns(file: string): Promise<{ name: string; type: string }[]>;
  close(): void;
}

/** An in-memory DuckDB that reads Parquet files' row counts and columns, whatever the destination. */
export async function openDuckParquetReader(): Promise<ParquetReader> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  return {
    async rowCount(file) {
      const r = await conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlText(file)})`);
      return Number(r.getRows()[0]?.[0] ?? 0);
    },
    async columns(file) {
      const r = await conn.runAndReadAll(
        `DESCRIBE SELECT * FROM read_parquet(${sqlText(file)}, hive_partitioning = false)`,
      );
      return r.getRows().map(([name, type]) => ({ name: String(name), type: String(type) }));
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
