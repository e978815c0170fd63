/**
 * The export as it was before it was bounded (benchmark 7's time baseline, run as its own
 * process in the same run as the export it is compared with): the database opened read-only
 * with DuckDB's defaults (memory_limit 80% of RAM), and one partitioned COPY per table of every
 * row, sorted, into project_id/year/month folders. Same tables, columns, order and layout as
 * `mintlify-etl export`; no staging or swap (a few renames, not measurable next to the COPYs).
 *
 *   node dist/test/bench/export-before.js DB OUT parquet|csv
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EXPORT_TABLES, exportedColumns } from '../../src/load/export-plan.js';

async function main(): Promise<void> {
  const [db, out, format] = process.argv.slice(2);
  if (db === undefined || out === undefined || (format !== 'parquet' && format !== 'csv')) {
    throw new Error('usage: export-before.js DB OUT parquet|csv');
  }
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    await conn.run("SET TimeZone = 'UTC'");
    const existing = await conn.runAndReadAll(
      "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'",
    );
    const tables = new Set(existing.getRows().map((r) => String(r[0])));
    mkdirSync(out, { recursive: true });
    const formatOptions = format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    for (const spec of EXPORT_TABLES) {
      if (!tables.has(spec.table) || spec.personal === true) continue;
      const day = spec.partitionDay ?? 'day';
      const select = `SELECT project_id, ${exportedColumns(spec, false).join(', ')}, year(${day}) AS year, strftime(${day}, '%m') AS month
        FROM ${spec.table} ORDER BY ${spec.order}`;
      const dir = join(out, spec.table).replaceAll("'", "''");
      await conn.run(
        `COPY (${select}) TO '${dir}' (${formatOptions}, PARTITION_BY (project_id, year, month), FILENAME_PATTERN 'data_{i}')`,
      );
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
