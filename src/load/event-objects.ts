import type { Destination } from './destination.js';
import type { EventRow } from './event-rows.js';
import { EVENT_STAGE, type EventStage } from './event-stage.js';
import { writeUnmapped } from './event-unmapped.js';
import { hasRelations } from './relations.js';
import { isoTime, type SqlSession } from './session.js';

/**
 * The event stream's side of a destination, in the SQL both destinations share: the visitor hash
 * key, the object ledger (event_objects), and one object's load in one transaction with its ledger
 * rows (sql/schema/010_event_stream.sql).
 */

/** The destination's key for visitor_key (src/load/hash-key.ts: it lives in a schema of its own). */
export { eventHashKey } from './hash-key.js';

/**
 * Whether the destination holds the event ledger yet. Only a sync migrates: a PostgreSQL schema (or
 * a DuckDB file of this schema version whose table was dropped) that a reader opens may predate it.
 */
export function hasEventLedger(session: SqlSession): Promise<boolean> {
  return hasRelations(session, ['event_objects']);
}

/** What the ledger holds for a source: per object key, the ETag loaded for each project. */
export type LoadedObjects = Map<string, Map<string, string | null>>;

export async function loadedEventObjects(
  session: SqlSession,
  source: string,
  projects: readonly string[],
): Promise<LoadedObjects> {
  const rows = await session.rows(
    `SELECT project_id, object_key, etag FROM event_objects
WHERE source = $1 AND project_id IN (SELECT unnest($2::VARCHAR[]))`,
    [source, [...projects]],
  );
  const out: LoadedObjects = new Map();
  for (const r of rows) {
    const key = String(r['object_key']);
    const m = out.get(key) ?? new Map<string, string | null>();
    m.set(String(r['project_id']), (r['etag'] as string | null) ?? null);
    out.set(key, m);
  }
  return out;
}

/** One object to load, for these projects (those whose ledger lacks it at this ETag). */
export interface EventObjectLoad {
  readonly source: string;
  readonly key: string;
  readonly etag: string | null;
  readonly size: number;
  readonly projects: readonly string[];
  readonly runId: string;
}

/** What reading the object found; per project, the events that mapped to it and the repeats. */
export interface EventObjectCounts {
  readonly lines: number;
  readonly events: number;
  readonly rejected: number;
  readonly unmapped: number;
  /** The unmapped events per subdomain (lower case), recorded for a later mapping (event-unmapped.ts). */
  readonly unmappedBySubdomain?: ReadonlyMap<string, number>;
}

/** Hands the object's rows over batch by batch; the load reads them inside the transaction. */
export type EventBatches = AsyncIterable<readonly EventRow[]>;

/**
 * Loads one object for its projects in ONE transaction: its rows are staged, those whose
 * (project, event_id) is stored already or repeats within the object (the first line wins) are
 * dropped, the rest inserted, and the ledger rows written. A failure or a kill at any instant
 * leaves the object all loaded or not at all. Returns the rows added per project.
 */
export async function loadEventObject(
  dest: Destination,
  load: EventObjectLoad,
  batches: EventBatches,
  counts: () => EventObjectCounts,
): Promise<Map<string, number>> {
  const session = dest.session;
  const stage = dest.eventStage();
  let added: Map<string, number>;
  try {
    added = await session.transaction(async () => {
      await stage.create();
      let ord = 0;
      for await (const rows of batches) {
        await stage.append(rows, ord);
        ord += rows.length;
      }
      const byProject = await mergeStage(session, stage, load.runId, load.projects);
      await writeLedger(session, load, counts(), byProject);
      await stage.drop();
      return byProject;
    });
  } catch (e) {
    // The load's own error is the one to report.
    await stage.ended().catch(() => undefined);
    throw e;
  }
  await stage.ended();
  return added;
}

/** Drops the object's repeats (the first line of an event wins), then lets the stage insert what is new. */
async function mergeStage(
  session: SqlSession,
  stage: EventStage,
  runId: string,
  projects: readonly string[],
): Promise<Map<string, number>> {
  const s = EVENT_STAGE;
  await session.run(
    `DELETE FROM ${s} WHERE ord NOT IN (SELECT min(ord) FROM ${s} GROUP BY project_id, event_id)`,
  );
  return stage.insertNew(runId, projects, isoTime(Date.now()));
}

async function writeLedger(
  session: SqlSession,
  load: EventObjectLoad,
  counts: EventObjectCounts,
  added: ReadonlyMap<string, number>,
): Promise<void> {
  const at = isoTime(Date.now());
  // Before the ledger rows change: whether the object was read before at this ETag counts.
  await writeUnmapped(session, load, counts.unmappedBySubdomain ?? new Map<string, number>());
  for (const project of load.projects) {
    await session.run('DELETE FROM event_objects WHERE project_id = $1 AND source = $2 AND object_key = $3', [
      project,
      load.source,
      load.key,
    ]);
    await session.run(
      `INSERT INTO event_objects (project_id, source, object_key, etag, size, lines, events, new_events, rejected,
  unmapped, run_id, loaded_at)
VALUES ($1, $2, $3, $4, $5::BIGINT, $6::BIGINT, $7::BIGINT, $8::BIGINT, $9::BIGINT, $10::BIGINT, $11, $12::TIMESTAMPTZ)`,
      [
        project,
        load.source,
        load.key,
        load.etag,
        load.size,
        counts.lines,
        counts.events,
        added.get(project) ?? 0,
        counts.rejected,
        counts.unmapped,
        load.runId,
        at,
      ],
    );
  }
}

/** What each run loaded of the event stream for a project: objects, and the events they added. */
export interface RunEvents {
  readonly objects: number;
  readonly newEvents: number;
}

export async function eventsByRun(
  session: SqlSession,
  projectId: string,
  runIds: readonly string[],
): Promise<Map<string, RunEvents>> {
  const out = new Map<string, RunEvents>();
  if (runIds.length === 0 || !(await hasEventLedger(session))) return out;
  const rows = await session.rows(
    `SELECT run_id, count(*)::BIGINT AS objects, sum(new_events)::BIGINT AS new_events FROM event_objects
WHERE project_id = $1::VARCHAR AND run_id IN (SELECT unnest($2::VARCHAR[])) GROUP BY run_id`,
    [projectId, [...runIds]],
  );
  for (const r of rows)
    out.set(String(r['run_id']), { objects: Number(r['objects']), newEvents: Number(r['new_events'] ?? 0) });
  return out;
}
