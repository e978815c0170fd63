-- mintlify-etl schema v3: every window belongs to a stream (one per endpoint) and spans
-- [window_start, window_end): a day for day streams, a range of days for event streams.
-- DuckDB cannot change a primary key in place, so the table is rebuilt; every existing row is a
-- visitors day and keeps its values.
CREATE TABLE sync_windows_v3 (
  project_id       text    NOT NULL,
  stream           text    NOT NULL,
  window_start     date    NOT NULL,
  window_end       date    NOT NULL,
  status           text    NOT NULL,  -- loaded | failed
  pages            integer NOT NULL,
  rows             integer NOT NULL,
  truncated        boolean NOT NULL DEFAULT false,  -- a --max-pages cap cut the window short
  api_totals_total bigint,
  attempts         integer NOT NULL,
  fetched_at       timestamptz NOT NULL,
  run_id           text    NOT NULL,
  error            text,
  PRIMARY KEY (project_id, stream, window_start)
);

INSERT INTO sync_windows_v3
SELECT project_id, 'visitors', day, day + 1, status, pages, rows, false, api_totals_total, attempts,
       fetched_at, run_id, error
FROM sync_windows;

DROP TABLE sync_windows;
ALTER TABLE sync_windows_v3 RENAME TO sync_windows;
{{ rename_primary_key(sync_windows, sync_windows_v3_pkey, sync_windows_pkey) }}

ALTER TABLE sync_runs ADD COLUMN streams text[];
UPDATE sync_runs SET streams = ARRAY['visitors'];
