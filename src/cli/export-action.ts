import { statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';
import type { Place } from '../load/destination.js';
import {
  EXPORT_TABLES,
  STAGING_PREFIX,
  type ExportOptions,
  type ExportSummary,
  type SkipReason,
} from '../load/export-plan.js';
import { refuseForeignFolder } from '../load/export-folder.js';
import { parseDay } from '../util/day.js';
import { isLakeDestination } from '../export/lake/lake-target-of.js';
import { userFileError } from '../util/file-errors.js';
import { formatDuration } from '../util/duration.js';
import type { CommandResult } from './result.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import { databaseFiles, isWithin, realTarget } from './target-path.js';
import { safeText } from '../util/safe-text.js';
import type { ExportFlags } from './export.js';

/*
 * What `mintlify-etl export` does. Its flags and help are export.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function exportCommand(flags: ExportFlags): Promise<CommandResult> {
  if (flags.ddl !== undefined) {
    const { exportDdlCommand } = await import('./export-ddl-action.js');
    return exportDdlCommand({ ...flags, ddl: flags.ddl });
  }
  if (isLakeDestination(flags.to)) {
    const { exportToLakeCommand } = await import('./export-lake-action.js');
    return exportToLakeCommand(placeOf(dbTargetOf(flags)), { ...flags, to: flags.to });
  }
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
function exportTarget(given: string | undefined, db: string | undefined, force: boolean): string {
  if (given === undefined) {
    throw new UsageError('export needs --out DIR, or --to s3://BUCKET/PREFIX or --to DIR for a lake');
  }
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
