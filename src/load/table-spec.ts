/**
 * What a stream's tables are, said as data: each destination reads a `TableSpec` and loads the
 * stream's prepared windows its own way, so a stream never knows which destination it writes.
 * The load data shapes (`PreparedWindow.data`) live here too: a destination reads them, a stream
 * writes them, and neither imports the other.
 */

/** A day table of a stream: (project_id, day) plus these columns, filled from JSON rows. */
export interface JsonTable {
  readonly table: string;
  /** Columns besides project_id and day, as [name, DuckDB type], named like the JSON fields. */
  readonly columns: readonly (readonly [string, string])[];
  /** The window's day column (default `day`; the period tables key on `period_start`). */
  readonly dayColumn?: string;
  /**
   * Chunks hold one JSON array per column (`{"path":[...],"human":[...]}`) instead of one object
   * per row: without the field names a page row's text is 40% shorter, which matters when a day
   * of 600,000 rows waits as text for its commit (issue 19, item 15).
   */
  readonly byColumn?: boolean;
}

/** One window's rows for one table, as JSON text (a few thousand rows at most per chunk). */
export interface JsonChunk {
  readonly rows: number;
  readonly body: string;
}

/** A column filled from the JSON rows: its name (= the JSON field), SQL type and JSON shape. */
export interface EventColumn {
  readonly name: string;
  readonly type: string;
  /** How DuckDB's JSON reader reads it, when not simply `type` (a LIST of STRUCT). */
  readonly json?: string;
}

/**
 * A table of keyed event records loaded by range windows: after a window [start, end) is loaded,
 * the table holds exactly the window's rows among those whose `time` lies in the range. Rows whose
 * time is NULL belong to no range: they are upserted by key and never deleted by one.
 */
export interface EventTable {
  readonly table: string;
  readonly columns: readonly EventColumn[];
  /** The key besides project_id. */
  readonly key: readonly string[];
  /** The event-time column (TIMESTAMPTZ). */
  readonly time: string;
  /** `seen`: first_seen_at kept from the row's first load, last_seen_at the fetch; else loaded_at. */
  readonly stamps: 'seen' | 'loaded';
}

/**
 * How a stream's windows replace their rows:
 * - `site-pages`: a site row (from the data's counts) and page rows per window, replaced as a set;
 * - `json-days`: rows of each table per (project, day), replaced as a set;
 * - `events`: keyed rows of a range window, deleted by range and upserted by key;
 * - `threads`: one assistant thread per window, its messages and its record replaced.
 */
export type TableSpec =
  | {
      readonly kind: 'site-pages';
      readonly siteTable: string;
      readonly pageTable: string;
      readonly dayColumn: string;
      /** The page rows' columns besides (project_id, day) (by column). */
      readonly pages: JsonTable;
    }
  | { readonly kind: 'json-days'; readonly tables: readonly JsonTable[] }
  | { readonly kind: 'events'; readonly table: EventTable }
  | { readonly kind: 'threads'; readonly messages: JsonTable };

/** `site-pages` data: the site row's counts and the page rows as JSON chunks. */
export interface SitePageData {
  readonly site: { readonly human: number; readonly ai: number; readonly total: number };
  /**
   * The page rows as JSON chunks: DuckDB parses one string in one allocation, and a 55,000-row
   * day as one string no longer fit the writer's 32 MB memory limit (every night, at hundreds of
   * requests per attempt).
   */
  readonly chunks: readonly JsonChunk[];
}

/** `json-days` data: per table, the window's rows in chunks. */
export type JsonTablesData = Readonly<Record<string, readonly JsonChunk[]>>;

/** `events` data: the window's rows as JSON chunks. */
export interface EventTableData {
  readonly chunks: readonly JsonChunk[];
}

/**
 * `gone`: the service answered that it has no such thread (404 naming the thread); `refused`: it
 * refused the id (400); `failed`: every retry failed (asked again after the other threads).
 */
export type ThreadStatus = 'loaded' | 'gone' | 'refused' | 'failed';

/** `threads` data: the thread's record and its messages as JSON chunks (rows carry thread_id). */
export interface ThreadData {
  readonly status: ThreadStatus;
  /**
   * Turns the thread is known to have: its user messages, or the turns planned if more. A thread
   * still going when fetched holds turns the assistant stream loads only the next day; counting
   * them here keeps that from looking like growth and paying for the thread twice.
   */
  readonly turns: number;
  readonly createdAt: string | null;
  readonly messages: number;
  readonly chunks: readonly JsonChunk[];
}
