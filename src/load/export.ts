import { mkdir, mkdtemp, readdir, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { addDays, type Day } from '../util/day.js';

export type ExportFormat = 'parquet' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['parquet', 'csv'];

export interface ExportOptions {
  /** The export root; each table gets its own folder inside it. */
  readonly outDir: string;
  readonly format: ExportFormat;
  /** First day wanted (inclusive); widened to the first day of its month. */
  readonly from?: Day | undefined;
  /** Day to stop before (exclusive, like sync --to); widened to the end of its month. */
  readonly to?: Day | undefined;
}

export interface TableExport {
  readonly table: string;
  /** Absolute folder of the table's partitions. */
  readonly dir: string;
  readonly rows: number;
  /** Data files written (one per project/month partition, more for very large months). */
  readonly files: number;
  readonly partitions: number;
  /** Files of partitions in scope that no longer have data (or are now fewer), deleted. */
  readonly removedFiles: number;
}

export interface ExportSummary {
  readonly out: string;
  readonly format: ExportFormat;
  /** The whole months exported, [from, to) as days; null when the whole table was exported. */
  readonly range: { readonly from: Day | null; readonly to: Day | null } | null;
  readonly tables: readonly TableExport[];
  readonly durationMs: number;
}

interface TableSpec {
  readonly table: string;
  readonly columns: readonly string[];
  readonly order: string;
}

/**
 * What is exported: the loaded data, without the bookkeeping columns (loaded_at, run_id).
 * The partition columns project_id, year and month are in the folder names, not in the files.
 */
export const EXPORT_TABLES: readonly TableSpec[] = [
  { table: 'site_daily', columns: ['day', 'human', 'ai', 'total', 'partial'], order: 'project_id, day' },
  { table: 'page_daily', columns: ['day', 'path', 'human', 'ai', 'total'], order: 'project_id, day, path' },
];

const DATA_FILE = /^data_\d+\.(?:parquet|csv)$/;

/** The first day of the month of `day`. */
export function monthStart(day: Day): Day {
  return `${day.slice(0, 7)}-01`;
}

/** The first day of the month after the one holding `day`. */
export function nextMonthStart(day: Day): Day {
  return addDays(monthStart(day), 32).slice(0, 7) + '-01';
}

/**
 * Whole months covering [from, to): a partition holds a month, so a partial month could only be
 * written by dropping the days outside the range from its file.
 */
export function monthRange(
  from: Day | undefined,
  to: Day | undefined,
): { from: Day | null; to: Day | null } | null {
  if (from === undefined && to === undefined) return null;
  return {
    from: from !== undefined ? monthStart(from) : null,
    to: to !== undefined ? nextMonthStart(addDays(to, -1)) : null,
  };
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Paths of data files under a table folder, relative to it: project_id=…/year=…/month=…/data_0.parquet. */
async function listDataFiles(tableDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (depth < 3 && entry.isDirectory() && entry.name.includes('=')) await walk(path, depth + 1);
      else if (depth === 3 && entry.isFile() && DATA_FILE.test(entry.name))
        out.push(relative(tableDir, path));
    }
  };
  await walk(tableDir, 0);
  return out.sort();
}

/** year and month of a partition path, from its folder names. */
function partitionMonth(rel: string): Day | undefined {
  const parts = rel.split(sep);
  const year = /^year=(\d{4})$/.exec(parts[1] ?? '')?.[1];
  const month = /^month=(\d{1,2})$/.exec(parts[2] ?? '')?.[1];
  if (year === undefined || month === undefined) return undefined;
  return `${year}-${month.padStart(2, '0')}-01`;
}

function inScope(rel: string, range: ExportSummary['range']): boolean {
  if (range === null) return true;
  const month = partitionMonth(rel);
  if (month === undefined) return false;
  return (range.from === null || month >= range.from) && (range.to === null || month < range.to);
}

/** Deletes the folders a removal left empty, from the partition up to (not including) the table folder. */
async function pruneEmpty(tableDir: string, rel: string): Promise<void> {
  let dir = join(tableDir, rel, '..');
  while (resolve(dir) !== resolve(tableDir) && resolve(dir).startsWith(resolve(tableDir))) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone): the folders above are not empty either
    }
    dir = join(dir, '..');
  }
}

interface StagedTable {
  readonly spec: TableSpec;
  readonly stagedDir: string;
  readonly rows: number;
  /** Data files written, relative to stagedDir. */
  readonly files: readonly string[];
}

async function stageTable(
  conn: DuckDBConnection,
  spec: TableSpec,
  opts: ExportOptions,
  range: ExportSummary['range'],
  staging: string,
): Promise<StagedTable> {
  const where: string[] = [];
  if (range?.from) where.push(`day >= DATE ${sqlString(range.from)}`);
  if (range?.to) where.push(`day < DATE ${sqlString(range.to)}`);
  const stagedDir = join(staging, spec.table);
  // Month as two digits (month=01): folders sort in time order and the layout never changes.
  const select = `SELECT project_id, ${spec.columns.join(', ')}, year(day) AS year, strftime(day, '%m') AS month
    FROM ${spec.table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${spec.order}`;
  const formatOptions = opts.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
  const result = await conn.run(
    `COPY (${select}) TO ${sqlString(stagedDir)} (${formatOptions}, PARTITION_BY (project_id, year, month), FILENAME_PATTERN 'data_{i}')`,
  );
  const counted = (await result.getRows())[0]?.[0];
  const rows = typeof counted === 'bigint' || typeof counted === 'number' ? Number(counted) : 0;
  return { spec, stagedDir, rows, files: await listDataFiles(stagedDir) };
}

/** Moves a staged table over the exported one and deletes the files of months in scope it no longer has. */
async function swapTable(
  staged: StagedTable,
  outDir: string,
  range: ExportSummary['range'],
): Promise<TableExport> {
  const targetDir = join(outDir, staged.spec.table);
  const existing = await listDataFiles(targetDir);
  // Each new file replaces the old one of the same name by rename: a reader sees the old file or
  // the new one, never a half-written one.
  for (const rel of staged.files) {
    const target = join(targetDir, rel);
    await mkdir(join(target, '..'), { recursive: true });
    await rename(join(staged.stagedDir, rel), target);
  }
  const written = new Set(staged.files);
  let removedFiles = 0;
  for (const rel of existing) {
    if (written.has(rel) || !inScope(rel, range)) continue;
    await unlink(join(targetDir, rel));
    removedFiles++;
    await pruneEmpty(targetDir, rel);
  }
  const partitions = new Set(staged.files.map((rel) => rel.split(sep).slice(0, 3).join(sep))).size;
  return {
    table: staged.spec.table,
    dir: targetDir,
    rows: staged.rows,
    files: staged.files.length,
    partitions,
    removedFiles,
  };
}

/** Staging folders are named .export-<pid>-<random>: the pid tells whether their export still runs. */
export const STAGING_PREFIX = '.export-';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the staging folders of exports that were killed (SIGKILL, power loss) before their
 * cleanup ran: those of a process that is gone, and the pid-less ones older versions made.
 * A running export's folder is left to it.
 */
async function removeLeftovers(out: string): Promise<void> {
  for (const entry of await readdir(out, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(STAGING_PREFIX)) continue;
    const pid = /^\.export-(\d+)-/.exec(entry.name)?.[1];
    if (pid !== undefined && isRunning(Number(pid))) continue;
    await rm(join(out, entry.name), { recursive: true, force: true });
  }
}

/**
 * Writes site_daily and page_daily as hive-partitioned files:
 * OUT/<table>/project_id=<id>/year=<YYYY>/month=<MM>/data_<n>.<parquet|csv>.
 *
 * Re-running over the same folder replaces, never adds: every table is first written to a
 * staging folder inside OUT, then moved over the old files by rename, and data files of the
 * months in scope that were not written again are deleted. With --from/--to only the whole
 * months the range touches are in scope; every other month's files stay as they were.
 *
 * All or nothing: nothing is moved until every table is staged, so a failure while writing (a
 * full disk, a kill) leaves every table's old files as they were.
 */
export async function exportTables(conn: DuckDBConnection, opts: ExportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const out = resolve(opts.outDir);
  const range = monthRange(opts.from, opts.to);
  await mkdir(out, { recursive: true });
  await removeLeftovers(out);
  // Inside OUT so that the final renames never cross a file system.
  const staging = await mkdtemp(join(out, `${STAGING_PREFIX}${process.pid}-`));
  try {
    const staged: StagedTable[] = [];
    for (const spec of EXPORT_TABLES) staged.push(await stageTable(conn, spec, opts, range, staging));
    const tables: TableExport[] = [];
    for (const table of staged) tables.push(await swapTable(table, out, range));
    return { out, format: opts.format, range, tables, durationMs: Date.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
