-- mintlify-etl schema v11: the objects of the event stream that could not be read.
--
-- event_object_failures: one row per (project, source, object) whose last read failed (a damaged
-- gzip, an archived object, a 403 on that object alone, a read too slow for its size, an expansion
-- past the bound) or that a user skipped on purpose (`sync --events-skip KEY`). A run goes on past
-- a failing object; later runs read every `failing` row again (by its key, wherever the listing
-- starts) and delete it once the object loads. A `skipped` row is not read again until the
-- object's ETag changes or `sync --events-read KEY` asks.
-- etag: the ETag the object had at its last failure; attempts: failed reads at that ETag (a new
-- ETag starts again at 1); cause: one line, never a credential.
CREATE TABLE IF NOT EXISTS event_object_failures (
  project_id      text        NOT NULL,
  source          text        NOT NULL,
  object_key      text        NOT NULL,
  etag            text,
  size            bigint      NOT NULL,
  status          text        NOT NULL,  -- failing | skipped
  code            text        NOT NULL,
  cause           text        NOT NULL,
  attempts        integer     NOT NULL,
  first_failed_at timestamptz NOT NULL,
  last_failed_at  timestamptz NOT NULL,
  run_id          text        NOT NULL
);
{{ unique_index(event_object_failures_key, event_object_failures, (project_id, source, object_key)) }}
