-- mintlify-etl schema v10: Mintlify's Enterprise event stream (raw analytics events from S3 or a
-- folder mirror of the bucket), loaded by `sync --events`. No API request involved.
--
-- analytics_events: one row per distinct event_id per project (raw storage repeats events; a
-- repeat is never a new row). `ip` is never stored: a visitor without anon_id is only the keyed
-- hash in visitor_key. anon_id, session_id, user_id and properties are personal data: left out of
-- export unless --include-personal-data.
-- - day: the UTC day of created_at as an instant (an offset like +02:00 honoured).
-- - traffic_class: human | ai_answers | search_index | training | other_bot, from the user agent
--   and the lists in data/traffic-classes.json (re-classify with `mintlify-etl reclassify`).
-- - visitor_key: HMAC-SHA-256 (key in event_hash_key) of the anon_id when it is non-empty, else
--   of (ip, user agent); NULL when the event has neither.
CREATE TABLE IF NOT EXISTS analytics_events (
  project_id    text        NOT NULL,
  event_id      text        NOT NULL,
  event_type    text,
  subdomain     text,
  created_at    timestamptz NOT NULL,
  day           date        NOT NULL,
  path          text,
  referrer      text,
  referrer_host text,
  traffic_class text        NOT NULL,
  visitor_key   text,
  anon_id       text,
  session_id    text,
  user_id       text,
  user_agent    text,
  {{ json_column(properties) }},
  object_key    text        NOT NULL,  -- the object (key under the source) the event was first read from
  run_id        text        NOT NULL,
  loaded_at     timestamptz NOT NULL
);
{{ unique_index(analytics_events_key, analytics_events, (project_id, event_id)) }}
{{ row_index(analytics_events_day, analytics_events, (project_id, day)) }}

-- event_objects: the ledger of the event stream, one row per (project, source, object) loaded, in
-- the same transaction as the object's events: a kill leaves an object fully loaded or not at all.
-- source: the bucket and prefix (`s3://bucket/prefix/`) or the folder (`file:///abs/folder/`).
-- lines: every line of the object; events: lines that were events (repeats included); new_events:
-- the rows this object added for the project; rejected: lines refused (not JSON, no event_id, a
-- payload that is not JSON, a created_at that is not a time); blank lines are neither.
-- unmapped: events of a subdomain no --events-project mapping names (not stored).
CREATE TABLE IF NOT EXISTS event_objects (
  project_id  text        NOT NULL,
  source      text        NOT NULL,
  object_key  text        NOT NULL,
  etag        text,
  size        bigint      NOT NULL,
  lines       bigint      NOT NULL,
  events      bigint      NOT NULL,
  new_events  bigint      NOT NULL,
  rejected    bigint      NOT NULL,
  unmapped    bigint      NOT NULL,
  run_id      text        NOT NULL,
  loaded_at   timestamptz NOT NULL
);
{{ unique_index(event_objects_key, event_objects, (project_id, source, object_key)) }}

-- event_hash_key: the destination's key for visitor_key, generated once at the first event load.
-- Not exported; without it visitor_key cannot be turned back into an ip and user agent.
CREATE TABLE IF NOT EXISTS event_hash_key (
  id         integer     NOT NULL,  -- always 1
  hash_key   text        NOT NULL,  -- 64 hex digits
  created_at timestamptz NOT NULL
);
{{ unique_index(event_hash_key_one, event_hash_key, (id)) }}
