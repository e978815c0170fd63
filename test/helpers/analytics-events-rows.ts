/**
 * A few analytics_events rows as one INSERT both destinations run (DuckDB and PostgreSQL read the
 * same literals), with the ledger and hash-key rows a loaded destination has beside them. Tests of
 * export and of the report's event-stream section insert them directly: no S3, no source.
 */

/** The destination's visitor_key key: must never reach an export. */
export const HASH_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

export interface EventFixtureRow {
  readonly id: string;
  readonly type: string;
  /** ISO instant (UTC). */
  readonly at: string;
  readonly path?: string | null;
  readonly host?: string | null;
  readonly cls?: string;
  readonly visitor?: string | null;
  readonly anon?: string | null;
  readonly session?: string | null;
  readonly user?: string | null;
  readonly properties?: string | null;
  readonly project?: string;
}

function lit(v: string | null | undefined): string {
  return v === null || v === undefined ? 'NULL' : `'${v.replaceAll("'", "''")}'`;
}

/** One INSERT of `rows` into analytics_events (day: the UTC day of `at`). */
export function insertEventsSql(rows: readonly EventFixtureRow[]): string {
  const tuples = rows.map(
    (r) =>
      `(${lit(r.project ?? 'docs-a')}, ${lit(r.id)}, ${lit(r.type)}, 'acme', TIMESTAMPTZ '${r.at}', DATE '${r.at.slice(0, 10)}', ` +
      `${lit(r.path ?? '/intro')}, ${r.host ? lit(`https://${r.host}/x`) : 'NULL'}, ${lit(r.host ?? null)}, ${lit(r.cls ?? 'human')}, ` +
      `${lit(r.visitor === undefined ? `v-${r.id}` : r.visitor)}, ${lit(r.anon ?? null)}, ${lit(r.session ?? null)}, ${lit(r.user ?? null)}, ` +
      `'Mozilla/5.0', ${lit(r.properties ?? null)}, 'events/2026/obj-1.jsonl', 'run-1', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
  );
  return `INSERT INTO analytics_events (project_id, event_id, event_type, subdomain, created_at, day, path, referrer,
    referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties, object_key, run_id, loaded_at)
    VALUES ${tuples.join(',\n')}`;
}

/** The ledger row and the hash key a load leaves beside the events. */
export const LEDGER_SQL = [
  `INSERT INTO event_objects VALUES ('docs-a', 's3://bucket/events/', 'events/2026/obj-1.jsonl', 'etag-1', 100, 5, 5, 5, 0, 0, 'run-1', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
  `INSERT INTO event_hash_key VALUES (1, '${HASH_KEY}', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
];
