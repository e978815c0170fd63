import { randomBytes } from 'node:crypto';
import { loadTrafficClasses, trafficClassSql } from '../../src/sources/events/traffic-class.js';
import { timeInFreshDuckDb } from './event-runs.js';

/*
 * The job a data engineer would write instead of `sync --streams events` (issue 35, item 13): one
 * DuckDB INSERT ... SELECT over read_json_objects of the folder, doing the same rules as the
 * sync: the payload an object or a JSON string, broken lines dropped, the first line of each
 * event_id kept, the UTC day, the referrer's host, the traffic class by a CASE over the lists, a
 * keyed sha256 of the visitor, typed columns (the table is analytics_events' shape). It is the
 * baseline the sync's DuckDB speed is held to (at most 1.5x its time).
 */

const TABLE = `CREATE TABLE analytics_events (
  project_id VARCHAR NOT NULL, event_id VARCHAR NOT NULL, event_type VARCHAR, subdomain VARCHAR,
  created_at TIMESTAMPTZ NOT NULL, day DATE NOT NULL, path VARCHAR, referrer VARCHAR, referrer_host VARCHAR,
  traffic_class VARCHAR NOT NULL, visitor_key VARCHAR, anon_id VARCHAR, session_id VARCHAR, user_id VARCHAR,
  user_agent VARCHAR, properties JSON, object_key VARCHAR NOT NULL, run_id VARCHAR NOT NULL,
  loaded_at TIMESTAMPTZ NOT NULL)`;

const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** The statement, for the folder `dir` and a 32-byte key (hex). */
export function handWrittenSql(dir: string, keyHex: string): string {
  const files = quote(`${dir}/**/*.jsonl`);
  return `INSERT INTO analytics_events
WITH lines AS (
  SELECT json AS j, filename, ord
  FROM read_json_objects(${files}, format = 'newline_delimited', ignore_errors = true, filename = true,
    maximum_object_size = 67108864) WITH ORDINALITY AS t(json, filename, ord)
), envelopes AS (
  SELECT filename, ord, j ->> '$.eventType' AS envelope_type,
    CASE WHEN json_type(j, '$.payload') = 'VARCHAR' THEN TRY_CAST(j ->> '$.payload' AS JSON)
         ELSE coalesce(j -> '$.payload', j) END AS p
  FROM lines
), events AS (
  SELECT filename, ord, p ->> '$.event_id' AS event_id, coalesce(envelope_type, p ->> '$.event') AS event_type,
    p ->> '$.subdomain' AS subdomain, TRY_CAST(p ->> '$.created_at' AS TIMESTAMPTZ) AS created_at,
    p ->> '$.path' AS path, p ->> '$.referrer' AS referrer, p ->> '$.anon_id' AS anon_id,
    p ->> '$.session_id' AS session_id, p ->> '$.user_id' AS user_id, p ->> '$.user_agent' AS user_agent,
    p ->> '$.ip' AS ip, p -> '$.properties' AS properties
  FROM envelopes WHERE json_type(p) = 'OBJECT'
)
SELECT 'bench', event_id, event_type, subdomain, created_at, CAST(timezone('UTC', created_at) AS DATE),
  path, referrer,
  nullif(regexp_replace(lower(regexp_extract(referrer, '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)', 1)), '^www\\.', ''), ''),
  ${trafficClassSql('user_agent', loadTrafficClasses())},
  CASE WHEN anon_id <> '' THEN sha256(${quote(keyHex)} || chr(0) || 'a' || chr(0) || anon_id)
       WHEN ip <> '' THEN sha256(${quote(keyHex)} || chr(0) || 'i' || chr(0) || ip || chr(0) || coalesce(user_agent, ''))
  END,
  anon_id, session_id, user_id, user_agent, properties, filename, 'bench-run', now()
FROM events
WHERE event_id IS NOT NULL AND event_id <> '' AND created_at IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY filename, ord) = 1`;
}

/**
 * The statement into an empty analytics_events of a fresh database file, under the sync writer's
 * settings left at DuckDB's defaults: its time alone, then a CHECKPOINT's (the sync's close
 * checkpoints what it loaded), and the rows it stored.
 */
export function timeHandWritten(dir: string): Promise<{ ms: number; checkpointMs: number; rows: number }> {
  return timeInFreshDuckDb([TABLE], handWrittenSql(dir, randomBytes(32).toString('hex')), 'analytics_events');
}
