-- mintlify-etl schema v12: the events of an object that no --events-project mapping named when the
-- object was read (not stored), per subdomain, so that a mapping that names the subdomain later
-- (a typo fixed, a deployment added) reads the object again for that subdomain's project instead of
-- losing its events: the ledger (event_objects) alone would say the object is done.
-- One row per (source, object, subdomain) whose events no run has stored yet, at the ETag read;
-- written in the object's transaction with its ledger rows, and deleted once a run stores them.
-- Events without a subdomain can never be mapped and are not recorded here (event_objects counts them).
CREATE TABLE IF NOT EXISTS event_object_unmapped (
  source      text        NOT NULL,
  object_key  text        NOT NULL,
  etag        text,
  subdomain   text        NOT NULL,  -- lower case, as --events-project matches it
  events      bigint      NOT NULL,
  run_id      text        NOT NULL,
  recorded_at timestamptz NOT NULL
);
{{ unique_index(event_object_unmapped_key, event_object_unmapped, (source, object_key, subdomain)) }}
