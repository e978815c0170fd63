import { EVENT_COLUMNS, type EventRow } from './event-rows.js';

/**
 * Where one event object's rows wait, inside the object's transaction, before they join
 * analytics_events (src/load/event-objects.ts). Each destination fills it its fastest way (DuckDB's
 * appender, PostgreSQL's COPY); what happens next is the same SQL on both.
 */
export interface EventStage {
  /** Creates the empty temporary table EVENT_STAGE: `ord` (the line's position) and STAGE_COLUMNS. */
  create(): Promise<void>;
  /** Appends rows; `firstOrd` numbers the first of them (a repeated event keeps its first line). */
  append(rows: readonly EventRow[], firstOrd: number): Promise<void>;
  /**
   * Inserts the stage's rows (the object's repeats dropped already) into analytics_events, leaving
   * out every (project, event_id) stored already; returns the rows added per project. PostgreSQL
   * asks its unique index (ON CONFLICT DO NOTHING); DuckDB, which has none on the table (its index
   * of 2 million keys outgrew the writer's memory), deletes the stored keys from the stage by an
   * anti-join first.
   */
  insertNew(runId: string, projects: readonly string[], loadedAt: string): Promise<Map<string, number>>;
  drop(): Promise<void>;
  /** After the object's transaction ended, committed or rolled back (DuckDB puts its memory back). */
  ended(): Promise<void>;
}

/** The INSERT both stages end with: the stage's columns cast to the table's types, with the run. */
export function insertFromStage(where = '', onConflict = ''): string {
  return `INSERT INTO analytics_events (${STAGE_COLUMNS.join(', ')}, run_id, loaded_at)
SELECT ${STAGE_COLUMNS.join(', ')}, $1, CAST($2 AS TIMESTAMPTZ) FROM ${EVENT_STAGE}${where}${onConflict}`;
}

export const EVENT_STAGE = 'etl_event_rows';

/** The stored columns, in the order both stages hold them (after `ord`). */
export const STAGE_COLUMNS = ['project_id', ...EVENT_COLUMNS] as const;
