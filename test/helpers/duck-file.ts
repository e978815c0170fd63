import { openDatabase, type Database } from '../../src/load/duckdb/database.js';

/** Opens the DuckDB file, runs `fn` on it and closes it, whatever `fn` does. */
export async function withDuckFile<T>(
  file: string,
  fn: (db: Database) => Promise<T>,
  readOnly = false,
): Promise<T> {
  const db = await openDatabase(file, { readOnly });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
