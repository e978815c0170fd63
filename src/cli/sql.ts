import type { Command } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { migrationScript, SQL_DESTINATIONS, type SqlDestination } from '../load/sql-script.js';
import { pgSchemaName } from '../load/target.js';
import type { CommandResult } from './result.js';

interface SqlFlags {
  destination?: string;
  schema?: string;
}

export function registerSql(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('sql')
    .summary('print the SQL of the tables, views and macros for DuckDB or PostgreSQL (no database needed)')
    .description(
      "Prints what the first sync applies to an empty destination, in order: every migration (sql/schema, each in a transaction with its schema_migrations row), then every view, macro or function (sql/views). The tables and views are written once for both destinations; this is their text rendered for one, with a '-- schema/NNN_name.sql' line before each file. For a DBA or a code review, or to create the destination by hand: paste it into duckdb or psql. On PostgreSQL it also sets the comments mintlify-etl knows its own objects by, so a later sync takes the schema as its own; the locks and ownership checks of a real migration are left out. Reads no database and writes nothing.",
    )
    .option('--destination <duckdb|postgres>', 'whose SQL to print')
    .option(
      '--schema <name>',
      'PostgreSQL: the schema the script creates and fills (default: MINTLIFY_ETL_SCHEMA, else mintlify)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl sql --destination duckdb | duckdb analytics.duckdb
  $ mintlify-etl sql --destination postgres --schema analytics > mintlify.sql
  $ psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f mintlify.sql`,
    )
    .action((flags: SqlFlags) => run(() => sqlCommand(flags)));
}

async function sqlCommand(flags: SqlFlags): Promise<CommandResult> {
  const destination = flags.destination;
  if (!SQL_DESTINATIONS.includes(destination as SqlDestination))
    throw new UsageError(
      `sql needs --destination duckdb or postgres${destination === undefined ? '' : `, not ${JSON.stringify(destination)}`}`,
    );
  if (flags.schema !== undefined && destination !== 'postgres')
    throw new UsageError('--schema names a PostgreSQL schema: use it with --destination postgres');
  const script = await migrationScript(
    destination as SqlDestination,
    destination === 'postgres' ? { schema: pgSchemaName(flags.schema) } : {},
  );
  process.stdout.write(script);
  return { exitCode: EXIT.ok };
}
