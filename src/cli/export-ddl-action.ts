import { UsageError } from '../errors.js';
import { lakeDdl } from '../export/lake/ddl/lake-ddl.js';
import type { DdlDialect } from '../export/lake/ddl/dialects.js';
import { lakeLocation } from '../export/lake/ddl/location.js';
import { lakeTables } from '../export/lake/lake-schema.js';
import { isLakeDestination } from '../export/lake/lake-target-of.js';
import { readContractTypes } from '../load/contract-types.js';
import { redactSecrets } from '../util/secrets.js';
import type { ExportFlags } from './export.js';
import type { CommandResult } from './result.js';

/**
 * `export --ddl ENGINE --to s3://BUCKET/PREFIX|DIR`: prints the statements that mount the lake
 * `export --to` writes there as the engine's tables. Nothing is read from the lake or the database:
 * the tables and columns are the export's plan, typed by the contract (the migrations).
 */
export async function exportDdlCommand(flags: ExportFlags & { ddl: DdlDialect }): Promise<CommandResult> {
  refuseOtherFlags(flags);
  if (!isLakeDestination(flags.to)) {
    throw new UsageError(
      `--ddl ${flags.ddl} needs --to s3://BUCKET/PREFIX${flags.ddl === 'duckdb' ? ' or --to DIR' : ''}: the lake the statements read`,
      { ddl: flags.ddl },
    );
  }
  const location = lakeLocation(flags.to, flags.ddl);
  const tables = lakeTables(await readContractTypes(), flags.includePersonalData ?? false);
  const statements = lakeDdl(flags.ddl, tables, location);
  // Printed whole, not through safeText/safeJson: a long location shortened there would change
  // the SQL. The statements hold the contract's names and the --to the user gave, and control
  // characters are refused in --to (location.ts).
  const text = flags.json === true ? JSON.stringify(statements, null, 2) : statements.join('\n\n');
  process.stdout.write(`${redactSecrets(text)}\n`);
  return { exitCode: 0 };
}

function refuseOtherFlags(flags: ExportFlags & { ddl: DdlDialect }): void {
  if (flags.formatGiven === true) {
    throw new UsageError('--ddl declares the Parquet files of a lake export: --format does not apply', {
      format: flags.format,
    });
  }
  if (flags.out !== undefined) {
    throw new UsageError('--ddl mounts a lake (--to s3://BUCKET/PREFIX or --to DIR), not an --out folder', {
      out: flags.out,
    });
  }
  if (flags.from !== undefined) {
    throw new UsageError('--ddl declares whole tables: --from does not apply', { from: flags.from });
  }
}
