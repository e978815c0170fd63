import { Option, type Command } from 'commander';
import { EXPORT_FORMATS, EXPORT_TABLES, type ExportFormat } from '../load/export-plan.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';
import { DDL_DIALECTS, type DdlDialect } from '../export/lake/ddl/dialects.js';

export interface ExportFlags {
  out?: string;
  /** `export --to s3://…|DIR`: how long a file left out of a lake manifest stays readable. */
  grace?: string;
  format: ExportFormat;
  from?: string;
  to?: string;
  db?: string;
  schema?: string;
  json?: boolean;
  includePersonalData?: boolean;
  force?: boolean;
  /** `export --ddl ENGINE --to …`: print the statements that mount the lake instead of exporting. */
  ddl?: DdlDialect;
  /** --format was given on the command line (its default does not count). */
  formatGiven?: boolean;
}

export function registerExport(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('export')
    .summary("write every loaded stream's tables as hive-partitioned Parquet (or CSV) files")
    .description(
      `Writes the loaded data for BI tools, Spark, BigQuery and friends, one folder per table:

  OUT/<table>/project_id=<id>/year=<YYYY>/month=<MM>/data_0.parquet
  OUT/analytics_events/project_id=<id>/…/day=<YYYY-MM-DD>/data_0.parquet

${EXPORT_TABLES.map((t) => `  ${t.table}: ${t.columns.map((c) => (t.personalColumns?.includes(c) === true ? `${c} (personal data: only with --include-personal-data)` : c)).join(', ')}${t.personal === true ? ' (personal data: only with --include-personal-data)' : ''}`).join('\n')}

project_id, year and month come from the folder names (hive partitioning); the bookkeeping columns loaded_at and run_id are left out. The month is that of the row's day: of day for the daily tables, of period_start for the weekly and monthly ones, and the UTC month of the event time for feedback (created_at), assistant_turns (ts), assistant_messages and assistant_threads (created_at); rows without one (feedback without created_at) are in year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__, read back as NULL, and written again by every export, --from/--to or not. analytics_events (the event stream of sync --events) is partitioned by its UTC day below the month, the day folder replacing the day column in the files (hive readers get it back as a DATE); anon_id, session_id, user_id and properties only with --include-personal-data, and without it path and referrer with e-mail addresses masked and referrer without its query string or fragment (referrer_host stays); its ledger event_objects is not exported, and its hash key event_hash_key never is. site_daily and page_daily (visitors) are always written; another table when it holds rows, when its stream has loaded days, or when OUT already holds its files, so a stream never synced gets no folder. --json lists each table written, each skipped (reason empty or personal) and, under skippedColumns, the columns left out of a written table: feedback's contact (readers' email addresses) unless --include-personal-data. Files written with it keep the emails until exported again without it.

Exporting again over the same folder replaces files, it never duplicates them: every table is staged in OUT/.export-*, then renamed over the old files, and files of months in scope that have no data any more are deleted. All or nothing: if writing fails (a full disk) no old file has been touched, and the staging folder of an export that was killed is removed by the next export into OUT. --from/--to limit the export to the whole months they touch (--to is exclusive, like sync); files of other months are left alone. The database is opened read-only, and an OUT whose table folders would hold it is refused. Every export writes OUT/.mintlify-etl-export.json first; an OUT that exists, is not empty and is not an earlier export (no such file, and entries other than table folders and the database's own files) is refused unless --force.`,
    )
    .option('--out <dir>', 'export folder (created if missing)')
    .addOption(new Option('--format <format>', 'file format').choices(EXPORT_FORMATS).default('parquet'))
    .option('--from <YYYY-MM-DD>', 'export the months from the one holding this day')
    .option(
      '--to <YYYY-MM-DD|s3://BUCKET/PREFIX|DIR>',
      'with --out: export the months up to the one holding the day before this one; else a lake to export into incrementally, an S3 prefix or a folder, with a _manifest.json per table (docs/export.md)',
    )
    .option(
      '--grace <duration>',
      'lake export: how long a file no manifest names any more is kept for queries in flight before it is deleted',
      '1h',
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option(
      '--include-personal-data',
      "also export personal data: feedback's contact column (readers' email addresses) and analytics_events' anon_id, session_id, user_id and properties, left out by default",
    )
    .option(
      '--force',
      'write into a folder that holds other files than an earlier export (refused by default: an export renames and deletes inside its table folders)',
    )
    .addOption(
      new Option(
        '--ddl <engine>',
        "with --to: print the statements that mount that lake as the engine's external tables (columns, types, partitions), one per table; exports nothing (docs/export.md)",
      ).choices(DDL_DIALECTS),
    )
    .option('--json', 'print one JSON summary on stdout (with --ddl: the statements as a JSON list)')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl export --out exports/                     # everything, Parquet
  $ mintlify-etl export --out exports/ --from 2026-03-01   # refresh March onwards
  $ mintlify-etl export --to s3://lake/mintlify             # the lake: changed partitions only
  $ mintlify-etl export --to s3://lake/mintlify --ddl athena # its CREATE EXTERNAL TABLE statements
  $ duckdb -c "SELECT * FROM read_parquet('exports/page_daily/**/*.parquet', hive_partitioning = true)"`,
    )
    .action((flags: ExportFlags, command: Command) =>
      run(async () =>
        (await import('./export-action.js')).exportCommand({
          ...flags,
          formatGiven: command.getOptionValueSource('format') === 'cli',
        }),
      ),
    );
}
