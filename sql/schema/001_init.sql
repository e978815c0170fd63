-- mintlify-etl schema v1. Names are a contract: tests, views and users' SQL depend on them.

CREATE TABLE IF NOT EXISTS site_daily (
  project_id VARCHAR NOT NULL,
  day        DATE    NOT NULL,
  human      BIGINT  NOT NULL,
  ai         BIGINT  NOT NULL,
  total      BIGINT  NOT NULL,
  partial    BOOLEAN NOT NULL DEFAULT false,
  loaded_at  TIMESTAMPTZ NOT NULL,
  run_id     VARCHAR NOT NULL,
  PRIMARY KEY (project_id, day)
);

-- No key or index on purpose: each load replaces a whole day's rows in one transaction, which
-- keeps (project_id, day, path) unique; an ART index would slow bulk loads.
CREATE TABLE IF NOT EXISTS page_daily (
  project_id VARCHAR NOT NULL,
  day        DATE    NOT NULL,
  path       VARCHAR NOT NULL,
  human      BIGINT  NOT NULL,
  ai         BIGINT  NOT NULL,
  total      BIGINT  NOT NULL
);

CREATE TABLE IF NOT EXISTS sync_windows (
  project_id       VARCHAR NOT NULL,
  day              DATE    NOT NULL,
  status           VARCHAR NOT NULL,  -- loaded | failed
  pages            INTEGER NOT NULL,
  rows             INTEGER NOT NULL,
  api_totals_total BIGINT,
  attempts         INTEGER NOT NULL,
  fetched_at       TIMESTAMPTZ NOT NULL,
  run_id           VARCHAR NOT NULL,
  error            VARCHAR,
  PRIMARY KEY (project_id, day)
);

CREATE TABLE IF NOT EXISTS sync_runs (
  run_id           VARCHAR PRIMARY KEY,
  project_ids      VARCHAR[] NOT NULL,
  started_at       TIMESTAMPTZ NOT NULL,
  finished_at      TIMESTAMPTZ,
  status           VARCHAR NOT NULL,  -- running | succeeded | incomplete | failed
  date_from        DATE,
  date_to          DATE,
  windows_planned  INTEGER NOT NULL DEFAULT 0,
  windows_loaded   INTEGER NOT NULL DEFAULT 0,
  windows_failed   INTEGER NOT NULL DEFAULT 0,
  windows_deferred INTEGER NOT NULL DEFAULT 0,
  requests         INTEGER NOT NULL DEFAULT 0,
  retries          INTEGER NOT NULL DEFAULT 0,
  rows_loaded      BIGINT  NOT NULL DEFAULT 0,
  warnings         INTEGER NOT NULL DEFAULT 0,
  error            VARCHAR,
  deferred_days    VARCHAR[]
);

-- The request ledger: one row per HTTP request sent (retries included), so the next run knows
-- how much of the service's sliding-window budget is already spent. No secrets, no query values.
CREATE TABLE IF NOT EXISTS api_requests (
  "at"        TIMESTAMPTZ NOT NULL,  -- AT is a keyword in DuckDB: always quote it
  seq         BIGINT  NOT NULL,
  endpoint    VARCHAR NOT NULL,
  project_id  VARCHAR,
  status      INTEGER,            -- NULL when no response arrived (reset, timeout)
  duration_ms INTEGER NOT NULL,
  run_id      VARCHAR
);

CREATE TABLE IF NOT EXISTS agent_jobs (
  project_id   VARCHAR NOT NULL,
  job_id       VARCHAR NOT NULL,
  status       VARCHAR,
  prompt       VARCHAR,
  repository   VARCHAR,
  ref          VARCHAR,
  model        VARCHAR,
  pr_link      VARCHAR,
  created_at   TIMESTAMPTZ,
  archived_at  TIMESTAMPTZ,
  last_seen_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (project_id, job_id)
);
