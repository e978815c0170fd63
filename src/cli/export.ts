import { statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Place } from '../load/destination.js';
import {
  EXPORT_FORMATS,
  EXPORT_TABLES,
  STAGING_PREFIX,
  type ExportFormat,
  type ExportOptions,
  type ExportSummary,
  type SkipReason,
} from '../load/export-plan.js';
import { refuseForeignFolder } from '../load/export-folder.js';
import { parseDay } from '../util/day.js';
import { userFileError } from '../util/file-errors.js';
import { formatDuration } from '../util/duration.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp, dbTargetOf, placeOf } from './destination-flags.js';
import { databaseFiles, isWithin, realTarget } from './target-path.js';
import { safeText } from '../util/safe-text.js';

export interface ExportFlags {
  out: string;
  format: ExportFormat;
  from?: string;
  to?: string;
  db?: string;
  schema?: string;
  json?: boolean;
  includePersonalData?: boolean;
  force?: boolean;
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
    .requiredOption('--out <dir>', 'export folder (created if missing)')
    .addOption(new Option('--format <format>', 'file format').choices(EXPORT_FORMATS).default('parquet'))
    .option('--from <YYYY-MM-DD>', 'export the months from the one holding this day')
    .option('--to <YYYY-MM-DD>', 'export the months up to the one holding the day before this one')
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
    .option('--json', 'print one JSON summary on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl export --out exports/                     # everything, Parquet
  $ mintlify-etl export --out exports/ --from 2026-03-01   # refresh March onwards
  $ duckdb -c "SELECT * FROM read_parquet('exports/page_daily/**/*.parquet', hive_partitioning = true)"`,
    )
    .action((flags: ExportFlags) => run(() => exportCommand(flags)));
}

function exportCommand(flags: ExportFlags): Promise<CommandResult> {
  return exportFrom(placeOf(dbTargetOf(flags)), flags);
}

/** `export` from a destination: the same checks, files and summary from every destination. */
export async function exportFrom(place: Place, flags: ExportFlags): Promise<CommandResult> {
  // OUT is checked before the database is opened: an OUT that would hold it is refused first.
  const opts = exportOptions(flags, place.file);
  const db = await place.open('read');
  try {
    return await runExport(flags, opts, () => db.exportTables(opts));
  } finally {
    await db.close();
  }
}

/** The export the flags ask for, after checking them and OUT. `db`: the DuckDB file, if any. */
function exportOptions(flags: ExportFlags, db: string | undefined): ExportOptions {
  const from = flags.from !== undefined ? parseDay(flags.from, '--from') : undefined;
  const to = flags.to !== undefined ? parseDay(flags.to, '--to') : undefined;
  if (from !== undefined && to !== undefined && from >= to) {
    throw new UsageError(`--from ${from} must be before --to ${to} (--to is exclusive)`, { from, to });
  }
  return {
    outDir: exportTarget(flags.out, db, flags.force === true),
    format: flags.format,
    from,
    to,
    includePersonalData: flags.includePersonalData ?? false,
  };
}

/** Runs the export and prints its summary. */
async function runExport(
  flags: ExportFlags,
  opts: ExportOptions,
  exportWith: () => Promise<ExportSummary>,
): Promise<CommandResult> {
  const summary = await exportWith().catch((e: unknown) => {
    // A full disk, a read-only mount or a folder we may not write is the user's to fix.
    throw userFileError(e, `--out ${flags.out}`, 'write the export in', opts.outDir) ?? e;
  });
  if (flags.json) return { exitCode: 0, json: summary };
  process.stdout.write(`${safeText(describeExport(summary))}\n`);
  if (flags.includePersonalData === true) {
    // The report warns the same way: files that leave this machine must not carry emails by surprise.
    process.stdout.write(
      "  personal data included: feedback's contact (readers' email addresses) and the event stream's anon_id, session_id, user_id and properties; share these files only with people allowed to see them, and export again without --include-personal-data to remove them\n",
    );
  }
  return { exitCode: 0 };
}

/**
 * The real export folder, refused up front when it cannot be one or when the export could touch
 * the database. An export writes, renames and deletes only inside OUT/<table>/ and its own
 * OUT/.export-* staging folders, so the database may sit in OUT itself (exports/ next to
 * analytics.duckdb) but never below one of those.
 */
function exportTarget(given: string, db: string | undefined, force: boolean): string {
  if (given.trim() === '') throw new UsageError('--out needs a folder');
  const out = realTarget(given, '--out');
  const existing = statSync(out, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isDirectory()) {
    throw new UsageError(`--out ${given} is a file, not a folder`, { out: given });
  }
  const managed = EXPORT_TABLES.map((t) => realTarget(join(out, t.table), '--out'));
  // A PostgreSQL destination has no file here to protect.
  const files = db !== undefined ? [...databaseFiles(db).keys()] : [];
  for (const file of files) {
    const [first = ''] = relative(out, file).split(sep);
    if (
      managed.some((dir) => isWithin(file, dir)) ||
      (isWithin(file, out) && first.startsWith(STAGING_PREFIX))
    ) {
      throw new UsageError(
        `--out ${given} would write where the database ${db} is (${file}): choose an export folder that does not hold it, e.g. exports/`,
        { out: given, db },
      );
    }
  }
  const databaseEntries = new Set(files.filter((f) => dirname(f) === out).map((f) => basename(f)));
  refuseForeignFolder(
    out,
    given,
    { tables: EXPORT_TABLES.map((t) => t.table), stagingPrefix: STAGING_PREFIX, databaseEntries },
    force,
  );
  return out;
}

export function describeExport(s: ExportSummary): string {
  const scope =
    s.range === null
      ? 'all months'
      : `months ${s.range.from?.slice(0, 7) ?? 'start'} to ${s.range.to ? `before ${s.range.to.slice(0, 7)}` : 'end'}`;
  const lines = [`exported ${scope} as ${s.format} to ${s.out} in ${formatDuration(s.durationMs)}`];
  const width = Math.max(10, ...s.tables.map((t) => t.table.length));
  // A table with nothing to write and nothing removed is "no data", whichever writer looked at it.
  const nothing = (t: ExportSummary['tables'][number]): boolean => t.rows === 0 && t.removedFiles === 0;
  for (const t of s.tables.filter((x) => !nothing(x))) {
    const removed = t.removedFiles > 0 ? `, ${t.removedFiles} stale file(s) removed` : '';
    lines.push(
      `  ${t.table.padEnd(width)}  ${t.rows} row(s) in ${t.files} file(s), ${t.partitions} partition(s)${removed}`,
    );
  }
  const skipped = (reason: SkipReason): string[] =>
    s.skipped.filter((t) => t.reason === reason).map((t) => t.table);
  const empty = [...s.tables.filter(nothing).map((t) => t.table), ...skipped('empty')];
  if (empty.length > 0) lines.push(`  skipped (no data): ${empty.join(', ')}`);
  const secret = skipped('secret');
  if (secret.length > 0) lines.push(`  never exported (a secret key): ${secret.join(', ')}`);
  const personal = skipped('personal');
  if (personal.length > 0) {
    lines.push(`  skipped (personal data, add --include-personal-data): ${personal.join(', ')}`);
  }
  for (const c of s.skippedColumns) {
    lines.push(
      `  left out of ${c.table} (personal data, add --include-personal-data): ${c.columns.join(', ')}`,
    );
  }
  return lines.join('\n');
}
