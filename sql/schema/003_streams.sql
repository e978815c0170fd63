-- mintlify-etl schema v3: every window belongs to a stream (one per endpoint) and spans
-- [window_start, window_end): a day for day streams, a range of days for event streams.
-- DuckDB cannot change a primary key in place, so the table is rebuilt; every existing row is a
-- visitors day and keeps its values.
CREATE TABLE sync_windows_v3 (
  project_id       VARCHAR NOT NULL,
  stream           VARCHAR NOT NULL,
  window_start     DATE    NOT NULL,
  window_end       DATE    NOT NULL,
  status           VARCHAR NOT NULL,  -- loaded | failed
  pages            INTEGER NOT NULL,
  rows             INTEGER NOT NULL,
  truncated        BOOLEAN NOT NULL DEFAULT false,  -- a --max-pages cap cut the window short
  api_totals_total BIGINT,
  attempts         INTEGER NOT NULL,
  fetched_at       TIMESTAMPTZ NOT NULL,
  run_id           VARCHAR NOT NULL,
  error            VARCHAR,
  PRIMARY KEY (project_id, stream, window_start)
);

INSERT INTO sync_windows_v3
SELECT project_id, 'visitors', day, day + 1, status, pages, rows, false, api_totals_total, attempts,
       fetched_at, run_id, error
FROM sync_windows;

DROP TABLE sync_windows;
ALTER TABLE sync_windows_v3 RENAME TO sync_windows;

ALTER TABLE sync_runs ADD COLUMN streams VARCHAR[];
UPDATE sync_runs SET streams = ['visitors'];
