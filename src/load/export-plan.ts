import { addDays, type Day } from '../util/day.js';
import { EMAIL_PATTERN, EMAIL_TOKEN } from '../util/personal-data.js';
import { EVENT_COLUMNS } from './event-rows.js';

/*
 * What `export` writes, said as data both destinations read: the tables and their columns, the
 * month partitions, the options and the summary. Each destination's export (duckdb/export.ts,
 * postgres/export.ts) writes the files with DuckDB's COPY.
 */

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
  /** Export the tables marked `personal` and the `personalColumns` too (--include-personal-data). */
  readonly includePersonalData?: boolean | undefined;
  /** The tables to consider (default EXPORT_TABLES); a test seam. */
  readonly tables?: readonly TableSpec[] | undefined;
  /** Rows one COPY writes at most (default EXPORT_CHUNK_ROWS); a test seam. */
  readonly chunkRows?: number | undefined;
  /**
   * Only the dated partitions this returns true for are written (the lake export's changed
   * partitions); each table's summary then lists every dated partition's version (`versions`).
   * Undated rows are written every time, as always.
   */
  readonly partitions?: ((table: string, p: PartitionVersion) => boolean) | undefined;
}

/**
 * A dated partition of a table and its version: rows and a hash of every row's exported columns
 * (sum of per-row hashes, so independent of order), in the source's own hash function. Equal
 * versions mean the partition's rows did not change; the lake export compares them with its
 * manifest's to leave unchanged partitions unread.
 */
export interface PartitionVersion {
  readonly project: string;
  /** The month's first day, or the day for a day-grain table. */
  readonly period: Day;
  readonly rows: number;
  readonly version: string;
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
  /** With ExportOptions.partitions: every dated partition of the table with its version. */
  readonly versions?: readonly PartitionVersion[];
}

/**
 * Why a table was not exported: `empty`: no rows, its stream has no loaded window and OUT holds
 * none of its files (a stream never synced); `personal`: it holds personal data and
 * --include-personal-data was not given (its files in OUT, if any, are left alone); `secret`: it is
 * in NEVER_EXPORTED.
 */
export type SkipReason = 'empty' | 'personal' | 'secret';

/**
 * Tables no export writes, whatever it is asked: event_hash_key holds the key of visitor_key's
 * keyed hash; with it a visitor_key could be matched against guessed ip and user-agent pairs.
 * Skipped with reason `secret` even when a caller lists them (`tables`).
 */
export const NEVER_EXPORTED: ReadonlySet<string> = new Set(['event_hash_key']);

export interface SkippedTable {
  readonly table: string;
  readonly reason: SkipReason;
}

/**
 * Columns of an exported table left out of its files: `personal`: they hold personal data (the
 * emails of feedback.contact) and --include-personal-data was not given. The table itself is
 * exported (it is in `tables`), without them.
 */
export interface SkippedColumns {
  readonly table: string;
  readonly columns: readonly string[];
  readonly reason: 'personal';
}

export interface ExportSummary {
  readonly out: string;
  readonly format: ExportFormat;
  /** The whole months exported, [from, to) as days; null when the whole table was exported. */
  readonly range: { readonly from: Day | null; readonly to: Day | null } | null;
  readonly tables: readonly TableExport[];
  readonly skipped: readonly SkippedTable[];
  /** Columns left out of tables that were exported (personal data unless asked for). */
  readonly skippedColumns: readonly SkippedColumns[];
  readonly durationMs: number;
}

export interface TableSpec {
  readonly table: string;
  /** The stream that fills it (sync_windows.stream). */
  readonly stream: string;
  readonly columns: readonly string[];
  readonly order: string;
  /**
   * The SQL expression of the DATE whose year and month partition the rows (default `day`): the
   * UTC day of the event time for the event tables, the period's first day for the period grains.
   * Rows where it is NULL (feedback without created_at) go to the __HIVE_DEFAULT_PARTITION__
   * folders, read back as year and month NULL.
   */
  readonly partitionDay?: string;
  /**
   * `month` (default): project_id=…/year=…/month=…/; `day`: project_id=…/year=…/month=…/day=YYYY-MM-DD/,
   * for a table of many rows a day (the event stream). The day partition is named after the table's
   * own `day` column and replaces it in the files: a hive reader gets it back as a DATE (a file
   * column of the same name would be shadowed by the folder's value).
   */
  readonly grain?: 'month' | 'day';
  /**
   * Rows one COPY of this table sorts at most, for tables of long text (comments, answers): the
   * default chunk of 250,000 rows of feedback overran the readers' 64 MB limit in its sort.
   */
  readonly chunkRows?: number;
  /**
   * Columns holding personal data (feedback.contact, an email): the table is exported without
   * them unless --include-personal-data, so that a folder shared with a BI tool never gets them.
   */
  readonly personalColumns?: readonly string[];
  /**
   * Columns written masked unless --include-personal-data: the SQL expression (of the column of
   * the same name) written in its place. The COPY that writes the files runs in DuckDB on both
   * destinations (PostgreSQL's rows reach it through a CSV), so the expression is written once.
   */
  readonly maskedColumns?: Readonly<Record<string, string>>;
  /**
   * Holds personal data (e.g. the emails of a feedback table): exported only with
   * --include-personal-data, so that an export folder shared with a BI tool never gets it by
   * default.
   */
  readonly personal?: boolean;
  /**
   * Exported even when empty: site_daily and page_daily were exported unconditionally before
   * there were streams, and scripts reading --json expect to find them.
   */
  readonly always?: boolean;
}

/** The UTC day of a TIMESTAMPTZ column, whatever the session's time zone. */
function utcDay(column: string): string {
  return `(${column} AT TIME ZONE 'UTC')::DATE`;
}

/**
 * What is exported: the loaded data of every stream's tables, without the bookkeeping columns
 * (loaded_at, run_id). The partition columns project_id, year and month are in the folder names,
 * not in the files. A table added to a stream must be added here (a test checks that every
 * registered stream's tables are, and that every column but the bookkeeping ones is exported);
 * mark it `personal` if it holds data about people.
 */
/**
 * Rows per COPY of the tables of free text (feedback, assistant turns and messages). A COPY of
 * several months writes them with PARTITION_BY, which holds every partition's rows until it ends,
 * outside DuckDB's memory limit: at 20,000 rows, 3 years of assistant answers (52 MB of text) went
 * in two statements and export peaked at 340 MiB (issue 36, item 12). 2,000 rows of answers are a
 * few MB; a month of more goes straight to its own file.
 */
const WIDE_CHUNK_ROWS = 2_000;

export const EXPORT_TABLES: readonly TableSpec[] = [
  {
    table: 'site_daily',
    stream: 'visitors',
    columns: ['day', 'human', 'ai', 'total', 'partial'],
    order: 'project_id, day',
    always: true,
  },
  {
    table: 'page_daily',
    stream: 'visitors',
    columns: ['day', 'path', 'human', 'ai', 'total'],
    order: 'project_id, day, path',
    always: true,
  },
  {
    table: 'site_views_daily',
    stream: 'views',
    columns: ['day', 'human', 'ai', 'total', 'partial'],
    order: 'project_id, day',
  },
  {
    table: 'page_views_daily',
    stream: 'views',
    columns: ['day', 'path', 'human', 'ai', 'total'],
    order: 'project_id, day, path',
  },
  {
    table: 'search_daily',
    stream: 'searches',
    columns: ['day', 'query', 'hits', 'ctr', 'top_clicked_path', 'last_searched_at'],
    order: 'project_id, day, query',
  },
  {
    table: 'search_totals_daily',
    stream: 'searches',
    columns: ['day', 'total_searches', 'terms', 'truncated'],
    order: 'project_id, day',
  },
  {
    table: 'assistant_callers_daily',
    stream: 'caller_stats',
    columns: ['day', 'web', 'api', 'other', 'total'],
    order: 'project_id, day',
  },
  {
    table: 'feedback_page_daily',
    stream: 'feedback_by_page',
    columns: ['day', 'path', 'thumbs_up', 'thumbs_down', 'code', 'total'],
    order: 'project_id, day, path',
  },
  {
    table: 'feedback',
    stream: 'feedback',
    columns: [
      'id',
      'path',
      'source',
      'status',
      'comment',
      'helpful',
      'contact',
      'code',
      'filename',
      'lang',
      'created_at',
      'first_seen_at',
      'last_seen_at',
    ],
    order: 'project_id, created_at NULLS LAST, id',
    partitionDay: utcDay('created_at'),
    chunkRows: WIDE_CHUNK_ROWS,
    personalColumns: ['contact'],
  },
  {
    table: 'assistant_turns',
    stream: 'assistant',
    columns: [
      'thread_id',
      'ts',
      'query',
      'response',
      'response_type',
      'resolution_status',
      'query_category',
      'page_url',
      'sources',
    ],
    order: 'project_id, ts, thread_id',
    partitionDay: utcDay('ts'),
    chunkRows: WIDE_CHUNK_ROWS,
  },
  {
    table: 'assistant_messages',
    stream: 'assistant_threads',
    columns: ['thread_id', 'message_id', 'seq', 'role', 'content', 'created_at'],
    order: 'project_id, created_at, thread_id, seq',
    partitionDay: utcDay('created_at'),
    chunkRows: WIDE_CHUNK_ROWS,
  },
  {
    table: 'assistant_threads',
    stream: 'assistant_threads',
    columns: ['thread_id', 'status', 'created_at', 'turns', 'messages', 'fetched_at'],
    order: 'project_id, created_at NULLS LAST, thread_id',
    partitionDay: utcDay('created_at'),
  },
  {
    table: 'site_weekly',
    stream: 'visitors_weekly',
    columns: ['period_start', 'human', 'ai', 'total', 'partial'],
    order: 'project_id, period_start',
    partitionDay: 'period_start',
  },
  {
    table: 'page_weekly',
    stream: 'visitors_weekly',
    columns: ['period_start', 'path', 'human', 'ai', 'total'],
    order: 'project_id, period_start, path',
    partitionDay: 'period_start',
  },
  {
    table: 'site_monthly',
    stream: 'visitors_monthly',
    columns: ['period_start', 'human', 'ai', 'total', 'partial'],
    order: 'project_id, period_start',
    partitionDay: 'period_start',
  },
  {
    table: 'page_monthly',
    stream: 'visitors_monthly',
    columns: ['period_start', 'path', 'human', 'ai', 'total'],
    order: 'project_id, period_start, path',
    partitionDay: 'period_start',
  },
  {
    // The event stream (sync --events), not a StreamDefinition: no sync_windows, so exported when
    // it holds rows or OUT has its files. Its ledger event_objects is bookkeeping (object keys,
    // ETags, runs), not data for a BI tool, and is not exported; event_hash_key never is.
    table: 'analytics_events',
    stream: 'events',
    columns: EVENT_COLUMNS,
    order: 'project_id, created_at, event_id',
    grain: 'day',
    // A COPY of several days holds every day's rows until it ends (PARTITION_BY): at the default
    // 250,000 rows, 500,000 events over 120 days peaked at 355 MiB; at 20,000, 189 MiB (209 with
    // properties). A day of more goes straight to its own file.
    chunkRows: 20_000,
    personalColumns: ['anon_id', 'session_id', 'user_id', 'properties'],
    // Readers' e-mail addresses travel in paths (/users/bob@corp.io) and in the query strings of
    // referrers (?email=, an ip in a tracking parameter): referrer_host is kept whole.
    maskedColumns: {
      path: maskEmailsSql('path'),
      referrer: maskEmailsSql(withoutQuerySql('referrer')),
    },
  },
];

/** `expr` with readers' e-mail addresses as [email] (src/util/personal-data.ts's rule), for DuckDB. */
function maskEmailsSql(expr: string): string {
  return `regexp_replace(${expr}, ${sqlText(EMAIL_PATTERN)}, ${sqlText(EMAIL_TOKEN)}, 'g')`;
}

/** A URL without its query string and fragment: everything from the first ? or # dropped. */
function withoutQuerySql(expr: string): string {
  // RE2's . stops at a line feed: (.|\n) runs to the end of a referrer that holds one.
  return `regexp_replace(${expr}, '[?#](.|\n)*$', '')`;
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The folder name hive partitioning gives a NULL partition value (read back as NULL). */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

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

/** The columns written for a table: all but its personal ones unless personal data is asked for. */
export function exportedColumns(spec: TableSpec, includePersonal: boolean): readonly string[] {
  const personal = new Set(includePersonal ? [] : (spec.personalColumns ?? []));
  return spec.columns.filter((c) => !personal.has(c));
}

/**
 * The select list of the files' columns: each column, or its masked expression (`... AS path`)
 * unless personal data is asked for.
 */
export function fileSelectList(spec: TableSpec, includePersonal: boolean): string {
  const masked = includePersonal ? {} : (spec.maskedColumns ?? {});
  return fileColumns(spec, includePersonal)
    .map((c) => (masked[c] !== undefined ? `${masked[c]} AS ${c}` : c))
    .join(', ');
}

/**
 * The columns inside the files: the exported ones but the day of a day-grain table, which is the
 * partition folder (day=YYYY-MM-DD) instead.
 */
export function fileColumns(spec: TableSpec, includePersonal: boolean): readonly string[] {
  const exported = exportedColumns(spec, includePersonal);
  return spec.grain === 'day' ? exported.filter((c) => c !== 'day') : exported;
}

/** Folder levels above a table's data files: project_id, year, month (and day). */
export function partitionDepth(spec: TableSpec): number {
  return spec.grain === 'day' ? 4 : 3;
}

/**
 * Rows one COPY statement writes at most (a month is never split): bounds what DuckDB sorts and
 * buffers at once. One partitioned COPY of a whole table sorted every row of it and kept every
 * partition's rows buffered (DuckDB flushes a partition at 524,288 rows, more than a month of
 * a 5,000-path site holds) until the end: 3 years of 5,000 paths a day peaked at 0.8-1 GB RSS.
 * A month of a 5,000-path site is ~150,000 rows; tables of a few rows a day go in one statement.
 */
export const EXPORT_CHUNK_ROWS = 250_000;

/**
 * Consecutive months grouped into [from, to) day ranges of at most `maxRows` rows (a month is
 * never split). For a day-grain table the "months" are days (`next`: the day after): a busy
 * month of events is written a few days at a time, not sorted whole.
 */
export function monthChunks(
  months: readonly { month: Day; rows: number }[],
  maxRows: number = EXPORT_CHUNK_ROWS,
  next: (start: Day) => Day = nextMonthStart,
): { from: Day; to: Day; months: number }[] {
  const chunks: { from: Day; to: Day; months: number; rows: number }[] = [];
  for (const m of [...months].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0))) {
    const last = chunks.at(-1);
    if (last !== undefined && last.rows + m.rows <= maxRows) {
      last.to = next(m.month);
      last.rows += m.rows;
      last.months++;
    } else chunks.push({ from: m.month, to: next(m.month), months: 1, rows: m.rows });
  }
  return chunks.map(({ from, to, months: n }) => ({ from, to, months: n }));
}

/**
 * Where an export reads: a DuckDB connection, or another destination that hands each chunk's rows
 * to a DuckDB instance, so that every file is written by the same DuckDB COPY statements.
 */
export interface ExportSource {
  /** The base tables the destination has (an older database lacks the newer streams' tables). */
  tableNames(): Promise<ReadonlySet<string>>;
  /** Streams with loaded windows (sync_windows.status = 'loaded'); called only when sync_windows exists. */
  loadedStreams(): Promise<ReadonlySet<string>>;
  hasRows(table: string): Promise<boolean>;
  /**
   * Rows per project and month of `day` (an SQL date expression both dialects read), `where` being
   * a WHERE clause in the SQL both dialects share (or ''); per day (`month` then being the day)
   * when `grain` is 'day'. With `versionOf` (columns), also each partition's version: the sum
   * of a hash of those columns over its rows (PartitionVersion).
   */
  monthCounts(
    table: string,
    day: string,
    where: string,
    grain?: 'month' | 'day',
    versionOf?: readonly string[],
  ): Promise<{ project: string; month: Day; rows: number; version?: string }[]>;
  /**
   * Runs one of export's DuckDB COPY statements, which reads `rows.columns` of `rows.table` where
   * `rows.where` (same shared SQL); returns the rows it wrote. `rows.scratch` is a folder of the
   * export's staging area this source may use for its own files.
   */
  copy(sql: string, rows: ChunkRows): Promise<number>;
}

/** The rows one COPY statement reads. */
export interface ChunkRows {
  readonly table: string;
  /** project_id and the exported columns. */
  readonly columns: readonly string[];
  /** ' WHERE …' or ''. */
  readonly where: string;
  readonly scratch: string;
}

/** The folder an export stages a table in, beside the table's own folder in OUT. */
export const STAGING_PREFIX = '.export-';
