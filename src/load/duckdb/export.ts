import { mkdir, mkdtemp, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { filesBelow, removeEmptyFolders } from '../../util/folder-walk.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { addDays, type Day } from '../../util/day.js';
import { makeFolder } from '../../util/file-errors.js';
import { withReadHeadroom } from './read-headroom.js';
import { writeManifest } from '../export-folder.js';
import {
  type ExportOptions,
  type TableExport,
  type SkippedTable,
  type SkippedColumns,
  type ExportSummary,
  type TableSpec,
  type PartitionVersion,
  EXPORT_TABLES,
  NULL_PARTITION,
  monthRange,
  exportedColumns,
  fileSelectList,
  partitionDepth,
  NEVER_EXPORTED,
  monthChunks,
  nextMonthStart,
  type ExportSource,
  STAGING_PREFIX,
} from '../export-plan.js';
import { isProcessAlive } from '../../util/process-alive.js';

const DATA_FILE = /^data_\d+\.(?:parquet|csv)$/;

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Paths of data files under a table folder, relative to it: project_id=…/year=…/month=…/data_0.parquet,
 * `depth` folder levels down (4 for a day-grain table: …/day=…/data_0.parquet).
 */
async function listDataFiles(tableDir: string, depth: number): Promise<string[]> {
  const files = await filesBelow(tableDir, {
    into: (name, level) => level < depth && name.includes('='),
    keep: (name, level) => level === depth && DATA_FILE.test(name),
  });
  return files.map((rel) => join(...rel)).sort();
}

/** year and month of a partition path, from its folder names. */
function partitionMonth(rel: string): Day | undefined {
  const parts = rel.split(sep);
  const year = /^year=(\d{4})$/.exec(parts[1] ?? '')?.[1];
  const month = /^month=(\d{1,2})$/.exec(parts[2] ?? '')?.[1];
  if (year === undefined || month === undefined) return undefined;
  return `${year}-${month.padStart(2, '0')}-01`;
}

/** The partition of rows without a date (feedback without created_at): in every export's scope. */
function undatedPartition(rel: string): boolean {
  return rel.split(sep)[1] === `year=${NULL_PARTITION}`;
}

function inScope(rel: string, range: ExportSummary['range']): boolean {
  if (range === null || undatedPartition(rel)) return true;
  const month = partitionMonth(rel);
  if (month === undefined) return false;
  return (range.from === null || month >= range.from) && (range.to === null || month < range.to);
}

interface StagedTable {
  readonly spec: TableSpec;
  readonly stagedDir: string;
  readonly rows: number;
  /** Data files written, relative to stagedDir. */
  readonly files: readonly string[];
  readonly versions?: readonly PartitionVersion[];
}

/**
 * A project id that DuckDB writes into a hive folder name as it is (`project_id=<id>`), so that
 * this module may name the folder itself; others go through PARTITION_BY, which encodes them.
 */
const PLAIN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Export's reads of a DuckDB database. */
export function duckExportSource(conn: DuckDBConnection): ExportSource {
  return {
    async tableNames() {
      const existing = await conn.runAndReadAll(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
      );
      return new Set(existing.getRows().map((r) => String(r[0])));
    },
    async loadedStreams() {
      const loaded = await conn.runAndReadAll(
        "SELECT DISTINCT stream FROM sync_windows WHERE status = 'loaded'",
      );
      return new Set(loaded.getRows().map((r) => String(r[0])));
    },
    async hasRows(table) {
      return (await scalar(conn, `SELECT EXISTS (SELECT 1 FROM ${table})`)) === true;
    },
    async monthCounts(table, day, where, grain = 'month', versionOf) {
      const version =
        versionOf === undefined ? 'NULL' : `CAST(sum(hash(${versionOf.join(', ')})) AS VARCHAR)`;
      const perMonth = await conn.runAndReadAll(
        `SELECT project_id, strftime(month, '%Y-%m-%d'), n, version FROM (
          SELECT project_id, date_trunc('${grain}', ${day})::DATE AS month, count(*) AS n, ${version} AS version
          FROM ${table}${where} GROUP BY project_id, month)`,
      );
      return perMonth.getRows().map(([project, month, n, v]) => ({
        project: String(project),
        month: String(month),
        rows: Number(n),
        ...(v === null ? {} : { version: String(v) }),
      }));
    },
    // A COPY rewrites its own files when run again: one DuckDB refuses for memory (a sort of long
    // answers, a Parquet row group) runs again under a larger limit.
    copy: (sql) => withReadHeadroom(conn, () => runCopy(conn, sql)),
  };
}

/** Runs a DuckDB COPY statement; returns the rows it wrote. */
export async function runCopy(conn: DuckDBConnection, sql: string): Promise<number> {
  const counted = (await (await conn.run(sql)).getRows())[0]?.[0];
  return typeof counted === 'bigint' || typeof counted === 'number' ? Number(counted) : 0;
}

async function stageTable(
  source: ExportSource,
  spec: TableSpec,
  opts: ExportOptions,
  range: ExportSummary['range'],
  staging: string,
): Promise<StagedTable> {
  const day = spec.partitionDay ?? 'day';
  const where: string[] = [];
  if (range?.from) where.push(`${day} >= DATE ${sqlString(range.from)}`);
  if (range?.to) where.push(`${day} < DATE ${sqlString(range.to)}`);
  const stagedDir = join(staging, spec.table);
  await mkdir(stagedDir, { recursive: true });
  const exported = exportedColumns(spec, opts.includePersonalData ?? false);
  const t: ChunkTarget = {
    spec,
    day,
    columns: fileSelectList(spec, opts.includePersonalData ?? false),
    stagedDir,
    format: opts.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet',
    ext: opts.format === 'csv' ? 'csv' : 'parquet',
    filter: (extra) => {
      const all = [...where, ...extra];
      return all.length > 0 ? ` WHERE ${all.join(' AND ')}` : '';
    },
  };
  const counted = await source.monthCounts(
    spec.table,
    day,
    t.filter([`${day} IS NOT NULL`]),
    spec.grain,
    opts.partitions === undefined ? undefined : ['project_id', ...exported],
  );
  const versions = opts.partitions === undefined ? undefined : partitionVersions(counted);
  const perMonth =
    versions === undefined
      ? counted
      : counted.filter((_, i) => opts.partitions?.(spec.table, versions[i] as PartitionVersion));
  const byProject = new Map<string, { month: Day; rows: number }[]>();
  for (const { project, month, rows: n } of perMonth) {
    const list = byProject.get(project) ?? [];
    list.push({ month, rows: n });
    byProject.set(project, list);
  }
  const copy: Copy = (sql, where) =>
    source.copy(sql, { table: spec.table, columns: ['project_id', ...exported], where, scratch: staging });
  let rows = [...byProject.keys()].every((id) => PLAIN_ID.test(id))
    ? await copyPerProject(t, byProject, opts.chunkRows ?? spec.chunkRows, copy)
    : await copyAllProjects(t, byProject, opts.chunkRows ?? spec.chunkRows, copy);
  // Undated rows belong to no month: every export writes them again, with or without a range,
  // through PARTITION_BY, which names their NULL year and month __HIVE_DEFAULT_PARTITION__.
  if (spec.partitionDay !== undefined) {
    const undated = ` WHERE ${day} IS NULL`;
    rows += await copy(
      `COPY (SELECT project_id, ${t.columns}, ${partitionCols(spec, day)} FROM ${spec.table}${undated} ORDER BY ${spec.order})
        TO ${sqlString(stagedDir)} (${t.format}, PARTITION_BY (project_id, ${partitionNames(spec)}), FILENAME_PATTERN 'data_{i}', OVERWRITE_OR_IGNORE)`,
      undated,
    );
  }
  const files = await listDataFiles(stagedDir, partitionDepth(spec));
  return { spec, stagedDir, rows, files, ...(versions === undefined ? {} : { versions }) };
}

function partitionVersions(
  counted: readonly { project: string; month: Day; rows: number; version?: string }[],
): PartitionVersion[] {
  return counted.map((c) => ({
    project: c.project,
    period: c.month,
    rows: c.rows,
    version: c.version ?? '',
  }));
}

/** What the COPY statements of one table share. */
interface ChunkTarget {
  readonly spec: TableSpec;
  /** The column (or expression) whose UTC month partitions the rows. */
  readonly day: string;
  /** The select list of the exported columns (masked ones as their expression AS the column). */
  readonly columns: string;
  readonly stagedDir: string;
  readonly format: string;
  readonly ext: string;
  /** The WHERE clause of the export's range plus `extra`. */
  readonly filter: (extra: readonly string[]) => string;
}

/** Runs a COPY statement that reads the table's rows `where` (the same WHERE clause as in `sql`). */
type Copy = (sql: string, where: string) => Promise<number>;

/**
 * Month as two digits (month=01): folders sort in time order and the layout never changes. A
 * day-grain table's day folder is the ISO date (day=2026-03-01), which hive readers type DATE.
 */
function partitionCols(spec: TableSpec, day: string): string {
  const month = `year(${day}) AS year, strftime(${day}, '%m') AS month`;
  return spec.grain === 'day' ? `${month}, strftime(${day}, '%Y-%m-%d') AS day` : month;
}

/** The start of the period after `start`: the next month, or the next day for a day-grain table. */
function nextPeriod(spec: TableSpec): (start: Day) => Day {
  return spec.grain === 'day' ? (start) => addDays(start, 1) : nextMonthStart;
}

/** The partition columns below project_id, as PARTITION_BY lists them. */
function partitionNames(spec: TableSpec): string {
  return spec.grain === 'day' ? 'year, month, day' : 'year, month';
}

function inChunk(t: ChunkTarget, c: { from: Day; to: Day }): string[] {
  return [`${t.day} >= DATE ${sqlString(c.from)}`, `${t.day} < DATE ${sqlString(c.to)}`];
}

/**
 * Chunks of whole months over every project, each COPY writing its own partitions (a month is
 * in one chunk only, so no two statements write one partition folder): for project ids DuckDB
 * must encode in a folder name.
 */
async function copyAllProjects(
  t: ChunkTarget,
  byProject: ReadonlyMap<string, readonly { month: Day; rows: number }[]>,
  chunkRows: number | undefined,
  copy: Copy,
): Promise<number> {
  const all = new Map<Day, number>();
  for (const list of byProject.values())
    for (const m of list) all.set(m.month, (all.get(m.month) ?? 0) + m.rows);
  let rows = 0;
  for (const chunk of monthChunks(
    [...all].map(([month, n]) => ({ month, rows: n })),
    chunkRows,
    nextPeriod(t.spec),
  )) {
    const where = t.filter(inChunk(t, chunk));
    rows += await copy(
      `COPY (SELECT project_id, ${t.columns}, ${partitionCols(t.spec, t.day)} FROM ${t.spec.table}${where} ORDER BY ${t.spec.order})
        TO ${sqlString(t.stagedDir)} (${t.format}, PARTITION_BY (project_id, ${partitionNames(t.spec)}), FILENAME_PATTERN 'data_{i}', OVERWRITE_OR_IGNORE)`,
      where,
    );
  }
  return rows;
}

/** Per project, months (days) in chunks; a chunk of one month (day) goes straight to its file. */
async function copyPerProject(
  t: ChunkTarget,
  byProject: ReadonlyMap<string, readonly { month: Day; rows: number }[]>,
  chunkRows: number | undefined,
  copy: Copy,
): Promise<number> {
  let rows = 0;
  for (const [project, months] of [...byProject].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const projectDir = join(t.stagedDir, `project_id=${project}`);
    const own = [`project_id = ${sqlString(project)}`];
    for (const chunk of monthChunks(months, chunkRows, nextPeriod(t.spec))) {
      const where = t.filter([...own, ...inChunk(t, chunk)]);
      if (chunk.months === 1) {
        // One partition: straight to its file. PARTITION_BY with ORDER BY cost 2.5x the time of
        // the same sorted rows written to one file.
        const month = join(projectDir, `year=${chunk.from.slice(0, 4)}`, `month=${chunk.from.slice(5, 7)}`);
        const dir = t.spec.grain === 'day' ? join(month, `day=${chunk.from}`) : month;
        await mkdir(dir, { recursive: true });
        rows += await copy(
          `COPY (SELECT ${t.columns} FROM ${t.spec.table}${where} ORDER BY ${t.spec.order})
            TO ${sqlString(join(dir, `data_0.${t.ext}`))} (${t.format})`,
          where,
        );
      } else {
        rows += await copy(
          `COPY (SELECT ${t.columns}, ${partitionCols(t.spec, t.day)} FROM ${t.spec.table}${where} ORDER BY ${t.spec.order})
            TO ${sqlString(projectDir)} (${t.format}, PARTITION_BY (${partitionNames(t.spec)}), FILENAME_PATTERN 'data_{i}', OVERWRITE_OR_IGNORE)`,
          where,
        );
      }
    }
  }
  return rows;
}

/** Moves a staged table over the exported one and deletes the files of months in scope it no longer has. */
async function swapTable(
  staged: StagedTable,
  outDir: string,
  range: ExportSummary['range'],
): Promise<TableExport> {
  const targetDir = join(outDir, staged.spec.table);
  const depth = partitionDepth(staged.spec);
  const existing = await listDataFiles(targetDir, depth);
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
    // Only changed partitions were written (ExportOptions.partitions): the others stay.
    if (written.has(rel) || !inScope(rel, range) || staged.versions !== undefined) continue;
    await unlink(join(targetDir, rel));
    removedFiles++;
    await removeEmptyFolders(targetDir, dirname(join(targetDir, rel)));
  }
  const partitions = new Set(staged.files.map((rel) => rel.split(sep).slice(0, depth).join(sep))).size;
  return {
    table: staged.spec.table,
    dir: targetDir,
    rows: staged.rows,
    files: staged.files.length,
    partitions,
    removedFiles,
    ...(staged.versions === undefined ? {} : { versions: staged.versions }),
  };
}

/**
 * Deletes the staging folders of exports that were killed (SIGKILL, power loss) before their
 * cleanup ran: those of a process that is gone, and the pid-less ones older versions made.
 * A running export's folder is left to it (they are named .export-<pid>-<random>).
 */
async function removeLeftovers(out: string): Promise<void> {
  for (const entry of await readdir(out, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(STAGING_PREFIX)) continue;
    const pid = /^\.export-(\d+)-/.exec(entry.name)?.[1];
    if (pid !== undefined && isProcessAlive(Number(pid))) continue;
    await rm(join(out, entry.name), { recursive: true, force: true });
  }
}

async function scalar(conn: DuckDBConnection, sql: string): Promise<unknown> {
  return (await conn.runAndReadAll(sql)).getRows()[0]?.[0];
}

/**
 * Splits the tables into those to export and those skipped. A table is exported when it holds
 * rows, when its stream has loaded windows (a stream synced over days without data still gets
 * its files of those months replaced), or when OUT already holds its files (so that stale ones
 * are removed); site_daily and page_daily always. A table an older database does not have is empty.
 */
async function selectTables(
  source: ExportSource,
  specs: readonly TableSpec[],
  out: string,
  includePersonal: boolean,
): Promise<{ chosen: TableSpec[]; skipped: SkippedTable[] }> {
  const tables = await source.tableNames();
  const streams = tables.has('sync_windows') ? await source.loadedStreams() : new Set<string>();
  const chosen: TableSpec[] = [];
  const skipped: SkippedTable[] = [];
  for (const spec of specs) {
    if (NEVER_EXPORTED.has(spec.table)) {
      skipped.push({ table: spec.table, reason: 'secret' });
      continue;
    }
    if (spec.personal === true && !includePersonal) {
      skipped.push({ table: spec.table, reason: 'personal' });
      continue;
    }
    const has =
      tables.has(spec.table) &&
      (spec.always === true ||
        streams.has(spec.stream) ||
        (await source.hasRows(spec.table)) ||
        (await listDataFiles(join(out, spec.table), partitionDepth(spec))).length > 0);
    if (has) chosen.push(spec);
    else skipped.push({ table: spec.table, reason: 'empty' });
  }
  return { chosen, skipped };
}

/**
 * Writes the tables of the loaded streams (EXPORT_TABLES) as hive-partitioned files:
 * OUT/<table>/project_id=<id>/year=<YYYY>/month=<MM>/data_<n>.<parquet|csv>, and a day-grain
 * table (analytics_events) one level deeper, …/month=<MM>/day=<YYYY-MM-DD>/data_<n>.<parquet|csv>.
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
  return exportFrom(duckExportSource(conn), opts);
}

/** exportTables from any source (a PostgreSQL destination: see postgres/export.ts). */
export async function exportFrom(source: ExportSource, opts: ExportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const out = resolve(opts.outDir);
  const range = monthRange(opts.from, opts.to);
  makeFolder(out, `--out ${opts.outDir}`);
  await writeManifest(out);
  await removeLeftovers(out);
  const specs = opts.tables ?? EXPORT_TABLES;
  const { chosen, skipped } = await selectTables(source, specs, out, opts.includePersonalData ?? false);
  // Inside OUT so that the final renames never cross a file system.
  const staging = await mkdtemp(join(out, `${STAGING_PREFIX}${process.pid}-`));
  try {
    const staged: StagedTable[] = [];
    for (const spec of chosen) staged.push(await stageTable(source, spec, opts, range, staging));
    const tables: TableExport[] = [];
    for (const table of staged) tables.push(await swapTable(table, out, range));
    const includePersonal = opts.includePersonalData ?? false;
    const skippedColumns: SkippedColumns[] = chosen.flatMap((spec) => {
      const columns = spec.columns.filter((c) => !exportedColumns(spec, includePersonal).includes(c));
      return columns.length > 0 ? [{ table: spec.table, columns, reason: 'personal' as const }] : [];
    });
    return {
      out,
      format: opts.format,
      range,
      tables,
      skipped,
      skippedColumns,
      durationMs: Date.now() - started,
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
