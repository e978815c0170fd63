import { openDuckParquetReader, type ParquetReader } from './duckdb/parquet-reader.js';

export type { ParquetReader };

/**
 * Opens a reader of what a Parquet file holds (its row count, its columns and their types) without asking
 * which destination wrote it: the export writes Parquet from either, and both read it back the
 * same way, through an in-memory DuckDB kept inside its destination folder.
 */
export function openParquetReader(): Promise<ParquetReader> {
  return openDuckParquetReader();
}
