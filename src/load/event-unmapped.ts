import { hasRelations } from './relations.js';
import { isoTime, type SqlSession } from './session.js';

/**
 * The unmapped events of the event stream's objects, per subdomain (event_object_unmapped,
 * sql/schema/012_event_unmapped.sql): events no --events-project mapping named when their object
 * was read. A later mapping that names such a subdomain reads the object again for it; without this
 * record the ledger would call the object done and its events would be lost for good.
 */

/** One object's unmapped events at the ETag read: subdomain (lower case) -> events. */
export interface UnmappedRecord {
  readonly etag: string | null;
  readonly subdomains: ReadonlyMap<string, number>;
}

/** Per object key of a source. */
export type UnmappedObjects = Map<string, UnmappedRecord>;

/** A destination migrated before schema v12 (a reader's) has recorded nothing. */
function hasTable(session: SqlSession): Promise<boolean> {
  return hasRelations(session, ['event_object_unmapped']);
}

export async function unmappedEventObjects(session: SqlSession, source: string): Promise<UnmappedObjects> {
  const out: UnmappedObjects = new Map();
  if (!(await hasTable(session))) return out;
  const rows = await session.rows(
    'SELECT object_key, etag, subdomain, events FROM event_object_unmapped WHERE source = $1',
    [source],
  );
  for (const r of rows) {
    const key = String(r['object_key']);
    const rec = out.get(key) ?? { etag: (r['etag'] as string | null) ?? null, subdomains: new Map() };
    (rec.subdomains as Map<string, number>).set(String(r['subdomain']), Number(r['events']));
    out.set(key, rec);
  }
  return out;
}

/** The object just read, inside its load's transaction. */
export interface UnmappedWrite {
  readonly source: string;
  readonly key: string;
  readonly etag: string | null;
  readonly runId: string;
}

/**
 * Replaces the object's record, in its load's transaction, BEFORE its ledger rows are written. A
 * subdomain stays recorded only while no run has stored its events: when the object was read
 * before at this ETag (a ledger row or a record at it), what that read stored is not recorded
 * again (another project's run with its own mapping), so only subdomains recorded then AND
 * unmapped now remain; an object read for the first time (or rewritten) records all it found.
 */
export async function writeUnmapped(
  session: SqlSession,
  w: UnmappedWrite,
  found: ReadonlyMap<string, number>,
): Promise<void> {
  const drop = (): Promise<number> =>
    session.run('DELETE FROM event_object_unmapped WHERE source = $1 AND object_key = $2', [w.source, w.key]);
  // Every event mapped (the usual run): nothing to record, one statement.
  if (found.size === 0) {
    await drop();
    return;
  }
  const params = [w.source, w.key, w.etag];
  const same = 'source = $1 AND object_key = $2 AND etag IS NOT DISTINCT FROM $3';
  const readBefore = await session.rows(
    `SELECT 1 AS x FROM event_objects WHERE ${same} UNION ALL SELECT 1 AS x FROM event_object_unmapped WHERE ${same} LIMIT 1`,
    params,
  );
  const prior = new Set(
    (await session.rows(`SELECT subdomain FROM event_object_unmapped WHERE ${same}`, params)).map((r) =>
      String(r['subdomain']),
    ),
  );
  await drop();
  const at = isoTime(Date.now());
  for (const [subdomain, events] of found) {
    if (readBefore.length > 0 && !prior.has(subdomain)) continue;
    await session.run(
      `INSERT INTO event_object_unmapped (source, object_key, etag, subdomain, events, run_id, recorded_at)
VALUES ($1, $2, $3, $4, $5::BIGINT, $6, $7::TIMESTAMPTZ)`,
      [w.source, w.key, w.etag, subdomain, events, w.runId, at],
    );
  }
}

/** Unmapped events per source and subdomain, for `status` and the mapping's warning. */
export interface UnmappedSubdomain {
  readonly source: string;
  readonly subdomain: string;
  readonly objects: number;
  readonly events: number;
}

export async function unmappedSubdomains(session: SqlSession, source?: string): Promise<UnmappedSubdomain[]> {
  if (!(await hasTable(session))) return [];
  const rows = await session.rows(
    `SELECT source, subdomain, count(*)::BIGINT AS objects, sum(events)::BIGINT AS events FROM event_object_unmapped
WHERE $1::VARCHAR IS NULL OR source = $1 GROUP BY source, subdomain ORDER BY source, subdomain`,
    [source ?? null],
  );
  return rows.map((r) => ({
    source: String(r['source']),
    subdomain: String(r['subdomain']),
    objects: Number(r['objects']),
    events: Number(r['events']),
  }));
}

/** The subdomains (lower case) of the events stored for these projects. */
export async function storedSubdomains(
  session: SqlSession,
  projects: readonly string[],
): Promise<Set<string>> {
  const rows = await session.rows(
    `SELECT DISTINCT lower(subdomain) AS s FROM analytics_events
WHERE subdomain IS NOT NULL AND project_id IN (SELECT unnest($1::VARCHAR[]))`,
    [[...projects]],
  );
  return new Set(rows.map((r) => String(r['s'])));
}
