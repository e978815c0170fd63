-- mintlify-etl schema v1. Names are a contract: tests, views and users' SQL depend on them.
-- No schema name anywhere: on PostgreSQL the runner sets search_path to the destination's schema
-- (mintlify by default), so the files work under any name.

CREATE TABLE IF NOT EXISTS site_daily (
  project_id   text    NOT NULL,
  day          date    NOT NULL,
  {{> site_counts }}
  PRIMARY KEY (project_id, day)
);

-- No key or index on purpose: each load replaces a whole day's rows in one transaction, which
-- keeps (project_id, day, path) unique; an ART index would slow bulk loads.
CREATE TABLE IF NOT EXISTS page_daily (
  project_id   text    NOT NULL,
  day          date    NOT NULL,
  path         text    NOT NULL,
  {{> visitor_counts }}
);

CREATE TABLE IF NOT EXISTS sync_windows (
  project_id       text    NOT NULL,
  day              date    NOT NULL,
  status           text    NOT NULL,  -- loaded | failed
  pages            integer NOT NULL,
  rows             integer NOT NULL,
  api_totals_total bigint,
  attempts         integer NOT NULL,
  fetched_at       timestamptz NOT NULL,
  run_id           text    NOT NULL,
  error            text,
  PRIMARY KEY (project_id, day)
);

CREATE TABLE IF NOT EXISTS sync_runs (
  run_id           text    PRIMARY KEY,
  project_ids      text[] NOT NULL,
  started_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  status           text    NOT NULL,  -- running | succeeded | incomplete | failed
  date_from        date,
  date_to          date,
  windows_planned  integer NOT NULL DEFAULT 0,
  windows_loaded   integer NOT NULL DEFAULT 0,
  windows_failed   integer NOT NULL DEFAULT 0,
  windows_deferred integer NOT NULL DEFAULT 0,
  requests         integer NOT NULL DEFAULT 0,
  retries          integer NOT NULL DEFAULT 0,
  rows_loaded      bigint  NOT NULL DEFAULT 0,
  warnings         integer NOT NULL DEFAULT 0,
  error            text,
  deferred_days    text[]
);

-- The request ledger: one row per HTTP request sent (retries included), so the next run knows
-- how much of the service's sliding-window budget is already spent. No secrets, no query values.
CREATE TABLE IF NOT EXISTS api_requests (
  "at"        timestamptz NOT NULL,  -- AT is a keyword in DuckDB: always quote it
  seq         bigint  NOT NULL,
  endpoint    text    NOT NULL,
  project_id  text,
  status      integer,            -- NULL when no response arrived (reset, timeout)
  duration_ms integer NOT NULL,
  run_id      text
);

CREATE TABLE IF NOT EXISTS agent_jobs (
  project_id   text    NOT NULL,
  job_id       text    NOT NULL,
  status       text,
  prompt       text,
  repository   text,
  ref          text,
  model        text,
  pr_link      text,
  created_at   timestamptz,
  archived_at  timestamptz,
  last_seen_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, job_id)
);
